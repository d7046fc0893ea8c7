import type { Kysely } from 'kysely';

/**
 * Archives kept for every release (issue 52): a release whose archive this store keeps lists the
 * store's URL as `download`, and keeps the URL its developer gave in `developer_download`. Null:
 * the archive is not kept here (published before, or with APPSTORE_KEEP_ARCHIVES=false), or the
 * release was taken from an upstream (mirror mode, whose archives were always kept).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('releases').addColumn('developer_download', 'text').execute();
}
