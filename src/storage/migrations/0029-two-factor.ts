import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Two-factor sign-in (issue 53): an authenticator app's secret (sealed under the secret key, with
 * the last step used so no code is accepted twice), recovery codes (their keyed hashes), passkeys
 * (WebAuthn credentials: public keys), and the sign-ins and passkey registrations under way.
 * `users.two_factor` says whether the account has a second factor (read with every sign-in).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('two_factor', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createTable('totp_secrets')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recovery_codes_user').on('recovery_codes').column('user_id').execute();
  await db.schema
    .createTable('passkeys')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').column('user_id').execute();
  await db.schema
    .createTable('pending_challenges')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** 'sign-in' (the password was right; the second factor is due) or 'passkey' (a registration). */
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text')
    .addColumn('next', 'text', (c) => c.notNull().defaultTo('/'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
