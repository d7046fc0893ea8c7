import type { Kysely } from 'kysely';

/**
 * Mirror mode (issue 49): each release considered records the trust settings it was judged
 * under (a digest of the upstream's authorities and revoked serials), so a new CRL or root
 * judges again what is listed and what was refused. Records from before have none: they are
 * judged again at the next sync, once. A release kept after it left the upstream keeps the
 * upstream's own entry for it (`kept_entry`), so an export can carry it to an air-gapped store.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('mirror_releases')
    .addColumn('checked_with', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('mirror_releases').addColumn('kept_entry', 'text').execute();
}
