import type { Kysely } from 'kysely';

/**
 * An administrator's decision outlives the rating it was made on (issue 54): a user whose
 * comment on an app was hidden, and who deletes the rating and rates again, finds the new comment
 * hidden too, until an administrator shows it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('moderation_marks')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('hidden_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('moderation_marks_pk', ['app_id', 'user_id'])
    .execute();
}
