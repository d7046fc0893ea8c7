import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Subscription keys (issue 52): a Nextcloud server with an enterprise subscription sends
 * `X-NC-Subscription-Key`, and a valid key lists the enterprise-only apps. Kept as SHA-256
 * hashes (keys are random, 32 bytes): a copy of the database gives no usable key.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('subscription_keys')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
}
