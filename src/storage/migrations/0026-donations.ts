import type { Kysely } from 'kysely';

/** The `<donation>` links of the app's latest release (issue 52), as JSON: `[{url, type, title}]`. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('apps')
    .addColumn('donations', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
