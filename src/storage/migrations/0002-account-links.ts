import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Self-service accounts (issue 14): whether a user's e-mail address was confirmed, and the links
 * mailed to confirm an address or reset a password. A link is stored as the keyed hash of its
 * secret only; it is deleted when used, so it works once.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('email_verified_at', 'text').execute();
  // Users that existed before were created by an operator, who vouched for them.
  await sql`update users set email_verified_at = created_at`.execute(db);

  await db.schema
    .createTable('account_links')
    .addColumn('secret_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    // For a change of address: the address the link confirms.
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('account_links_user_id').on('account_links').column('user_id').execute();
  await db.schema
    .createIndex('users_email_lower')
    .on('users')
    .expression(sql`lower(email)`)
    .execute();
}
