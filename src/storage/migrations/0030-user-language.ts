import type { Kysely } from 'kysely';

/**
 * The site language each user last chose (issue 54): the language switcher, or the page they
 * signed up on, sets it; their mails are written in it. Null: English (every account before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('language', 'text').execute();
}
