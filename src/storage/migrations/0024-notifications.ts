import type { Kysely } from 'kysely';

/**
 * Notifications by mail (issue 52): the kinds each user turned off, and what was sent already of
 * the notifications the store finds by looking (a certificate about to expire, a new Nextcloud
 * major), so each goes once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_optouts')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_optouts_pkey', ['user_id', 'kind'])
    .execute();
  await db.schema
    .createTable('notifications_sent')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .execute();
}
