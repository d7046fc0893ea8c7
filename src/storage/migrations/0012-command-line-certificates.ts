import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Certificates issued by `appstore ca issue` are recorded beside those requested from the
 * developer pages, so an administrator can revoke them by serial too. They have no requesting
 * user: `certificate_requests.user_id` becomes nullable. SQLite cannot drop a NOT NULL, so there
 * the table is rebuilt (nothing references it).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table certificate_requests alter column user_id drop not null`.execute(db);
    return;
  }
  await sql`create table certificate_requests_new (
    id integer primary key autoincrement,
    user_id integer references users(id) on delete cascade,
    app_id text not null,
    csr text not null,
    status text not null,
    certificate text,
    serial text,
    reason text not null default '',
    created_at text not null,
    decided_at text,
    decided_by text)`.execute(db);
  await sql`insert into certificate_requests_new (id, user_id, app_id, csr, status, certificate, serial, reason, created_at, decided_at, decided_by)
    select id, user_id, app_id, csr, status, certificate, serial, reason, created_at, decided_at, decided_by from certificate_requests`.execute(
    db,
  );
  await sql`drop table certificate_requests`.execute(db);
  await sql`alter table certificate_requests_new rename to certificate_requests`.execute(db);
  await db.schema
    .createIndex('certificate_requests_status')
    .on('certificate_requests')
    .columns(['status', 'id'])
    .execute();
  await db.schema.createIndex('certificate_requests_user_id').on('certificate_requests').column('user_id').execute();
}
