import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Read-your-writes across processes on PostgreSQL (issue 25): the notification of a new content
 * version carries the version itself (instance id, number, time of the change), so a listening
 * node takes it when it arrives instead of reading it back in another round trip, during which
 * a request could still be answered from the old version. SQLite needs nothing: its nodes ask a
 * probe connection on every request.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    create or replace function appstore_content_version_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('appstore_content_version', new.instance_id || ' ' || new.version || ' ' || new.changed_at);
      return new;
    end $$`.execute(db);
}
