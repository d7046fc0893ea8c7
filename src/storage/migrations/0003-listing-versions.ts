import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The listing engine (issue 15): each app records the content version of the last write that
 * changed what the listings show of it, so a node re-renders only the apps whose number moved
 * instead of the whole catalogue. Existing apps start at the current version.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('apps')
    .addColumn('listing_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update apps set listing_version = coalesce((select version from content_version where id = 1), 0)`.execute(
    db,
  );
  if (dialect !== 'postgres') return;
  // Every node (and the CLI) hears of every committed write at once, whoever made it: the
  // notification is sent on commit, and only then. The payload names the schema, since several
  // stores may share one database; a listener re-reads the version whatever it says.
  await sql`
    create function appstore_content_version_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('appstore_content_version', tg_table_schema || ':' || new.version);
      return new;
    end $$`.execute(db);
  await sql`
    create trigger content_version_notify after update on content_version
    for each row execute function appstore_content_version_notify()`.execute(db);
}
