import type { Kysely } from 'kysely';

/**
 * Saved listing parts that cannot go stale (issue 25): each part carries a checksum of its fields,
 * its bytes and its format, checked when it is taken (parts saved before have none: they are
 * rendered again once). Each running node records the part format it uses, every few minutes:
 * during a rolling upgrade, two versions keep each other's parts, and the housekeeping removes
 * the parts of formats no node has used for a day.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('listing_parts')
    .addColumn('checksum', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('listing_part_formats')
    .addColumn('format', 'text', (c) => c.primaryKey())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();
}
