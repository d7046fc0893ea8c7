import type { Kysely } from 'kysely';

/**
 * Saying an app is over (issue 52): an app deprecated by its owner (when, why, and the app to use
 * instead) or looking for maintainers; a release retired (when, why: security, broken, other, and
 * a note), which the listings no longer offer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('deprecated_at', 'text').execute();
  await db.schema
    .alterTable('apps')
    .addColumn('deprecation_reason', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('apps')
    .addColumn('successor_id', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('apps').addColumn('orphaned_at', 'text').execute();
  await db.schema.alterTable('releases').addColumn('retired_at', 'text').execute();
  await db.schema
    .alterTable('releases')
    .addColumn('retirement_reason', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('releases')
    .addColumn('retirement_note', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
