import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * What several nodes on one database share (issue 16):
 * - `store_identity`, one row: a fingerprint of the secret key (a node with another key refuses to
 *   start) and the store's own certificate authority, its private key encrypted under the secret
 *   key (a copy of the database alone holds no usable key); `retired_authorities` are earlier
 *   authorities, still trusted so that the certificates they issued keep working.
 * - `audit_log`: who changed what, when and from where, written in the transaction of the change.
 * - `housekeeping_leases`: which node runs a periodic task now, and when it last ran.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('store_identity')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('key_fingerprint', 'text', (c) => c.notNull())
    .addColumn('authority_certificate', 'text')
    .addColumn('authority_key', 'text')
    .addColumn('retired_authorities', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('audit_log')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    // 'user' (actor_user_id and actor_name set) or 'cli' (actor_name: the operating-system user).
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'integer')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('request_id', 'text')
    .addColumn('app_id', 'text')
    // The user the change was about (a co-maintainer, a created or disabled user), by name.
    .addColumn('subject_user', 'text')
    // Everything else about the object, as a JSON object (never a secret).
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  await db.schema.createIndex('audit_log_app').on('audit_log').columns(['app_id', 'at']).execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_name', 'at']).execute();
  await db.schema
    .createTable('housekeeping_leases')
    .addColumn('task', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addColumn('last_run_at', 'text')
    .execute();
  // Rate-limit rows are pruned by age across all subjects: an index on the time.
  await db.schema.createIndex('rate_limit_hits_at').on('rate_limit_hits').column('hit_at').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').ifNotExists().execute();
}
