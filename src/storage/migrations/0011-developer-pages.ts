import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The developer and administrator pages (issue 27): publishes started from a page and followed
 * by a page that refreshes (any node of the store can show them), certificate requests waiting
 * for an administrator's approval, and the store's own settings (whether certificates need one).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'sqlite' ? col.primaryKey().autoIncrement() : col.generatedByDefaultAsIdentity().primaryKey();
  const user = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    col.notNull().references('users.id').onDelete('cascade');

  await db.schema
    .createTable('publish_jobs')
    // Random, unguessable: the job page's address.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', user)
    .addColumn('download', 'text', (c) => c.notNull())
    .addColumn('nightly', 'boolean', (c) => c.notNull())
    // running, done, refused, failed
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON: {appId, version, created} when done; {code, detail, fields?} when refused.
    .addColumn('outcome', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('publish_jobs_user_id').on('publish_jobs').column('user_id').execute();

  await db.schema
    .createTable('certificate_requests')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', user)
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('csr', 'text', (c) => c.notNull())
    // pending, issued, rejected
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('certificate', 'text')
    .addColumn('serial', 'text')
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .execute();
  await db.schema
    .createIndex('certificate_requests_status')
    .on('certificate_requests')
    .columns(['status', 'id'])
    .execute();
  await db.schema.createIndex('certificate_requests_user_id').on('certificate_requests').column('user_id').execute();

  await db.schema
    .createTable('store_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
