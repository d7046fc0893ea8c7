import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Scoped tokens (issue 53): many per user, each with a name, scopes, optionally some apps, and an
 * expiry. Only the keyed hash of a token is kept (it is shown once, when made): a copy of the
 * database gives no usable token. Trusted publishing's short-lived tokens are rows here too
 * (kind 'publishing'), with the CI job's provenance. The account's unscoped token stays in
 * `api_tokens`, unchanged.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('access_tokens')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lookup_hash', 'text', (c) => c.notNull().unique())
    /** Space-separated scopes. */
    .addColumn('scopes', 'text', (c) => c.notNull())
    /** Space-separated app ids; null: every app of the user. */
    .addColumn('apps', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    /** JSON: where the CI job ran (publishing tokens). */
    .addColumn('provenance', 'text')
    .execute();
  await db.schema.createIndex('access_tokens_user').on('access_tokens').column('user_id').execute();
  await db.schema.createIndex('access_tokens_expiry').on('access_tokens').column('expires_at').execute();
}
