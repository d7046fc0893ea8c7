import type { Kysely } from 'kysely';

/**
 * discover.json's entries (issue 17), in the order of the imported file: each as the JSON the
 * listing serves. An import replaces them all; entries past their expiryDate stay stored and
 * are left out when the listing is rendered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('discover_entries')
    .addColumn('position', 'integer', (c) => c.primaryKey())
    .addColumn('entry_id', 'text', (c) => c.notNull().unique())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
}
