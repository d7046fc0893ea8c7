import type { Kysely } from 'kysely';

/**
 * Mirror mode (issue 30, docs/mirror.md): where each app comes from, the upstream documents last
 * read (with their ETags), every upstream release a sync considered (listed, or why not), and how
 * often each release's archive was downloaded from this store (a count, nothing about who).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // '' for an app registered here; 'upstream' for one taken from the upstream store.
  await db.schema
    .alterTable('apps')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // The hash of what the last sync applied to a mirrored app: an app whose hash did not move is not written again.
  await db.schema
    .alterTable('apps')
    .addColumn('upstream_hash', 'text', (c) => c.notNull().defaultTo(''))
    .execute();

  await db.schema
    .createTable('mirror_documents')
    // categories, platforms, apps, appapi_apps, discover.
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('etag', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('mirror_releases')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('is_nightly', 'boolean', (c) => c.notNull())
    .addColumn('upstream_download', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    // listed, refused (a check failed) or unavailable (the archive could not be downloaded).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('mirror_releases_pkey', ['app_id', 'version', 'is_nightly'])
    .execute();

  await db.schema
    .createTable('release_downloads')
    .addColumn('release_id', 'integer', (c) => c.primaryKey().references('releases.id').onDelete('cascade'))
    .addColumn('count', 'bigint', (c) => c.notNull())
    .execute();
}
