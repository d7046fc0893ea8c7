import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Moderating ratings (issue 54): the app version current when a rating was given; a hidden
 * comment (hidden_at: it leaves ratings.json and the app page, the rating value stays); the
 * owner's one reply under a comment; reports of comments, each with its reason and how it was
 * settled; and users an administrator stopped from rating.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const column of ['app_version', 'hidden_at', 'reply', 'reply_at'])
    await db.schema.alterTable('ratings').addColumn(column, 'text').execute();
  await db.schema.alterTable('users').addColumn('rating_blocked_at', 'text').execute();
  await db.schema
    .createTable('rating_reports')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('rating_id', 'integer', (c) => c.notNull().references('ratings.id').onDelete('cascade'))
    .addColumn('reporter_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    /** How it was settled: hidden, dismissed, removed (the rating); null while it waits. */
    .addColumn('resolution', 'text')
    .addColumn('resolved_at', 'text')
    .addUniqueConstraint('rating_reports_once', ['rating_id', 'reporter_id'])
    .execute();
  await db.schema
    .createIndex('rating_reports_open')
    .on('rating_reports')
    .columns(['resolved_at', 'rating_id'])
    .execute();
}
