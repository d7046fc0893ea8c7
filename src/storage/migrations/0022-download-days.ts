import type { Kysely } from 'kysely';

/**
 * Downloads per release and day (issue 52): what the downloads API's series and the developer's
 * chart read. `release_downloads` (migration 0015) stays the total, counted since the store first
 * served the archive; days are counted from this migration on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('release_download_days')
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('release_download_days_pkey', ['release_id', 'day'])
    .execute();
}
