import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DatabaseHandle, DatabaseTarget, OpenOptions } from './database-handle.ts';
import { openPostgres } from './postgres-database.ts';
import type { Database } from './schema.ts';
import { openSqlite } from './sqlite-database.ts';

export type {
  CommitProbe,
  DatabaseHandle,
  DatabaseTarget,
  Dialect,
  Listening,
  OpenOptions,
} from './database-handle.ts';

/**
 * The store's database, one face for both dialects: a SQLite file (sqlite-database.ts) or a
 * PostgreSQL server (postgres-database.ts). What each offers beyond Kysely (LISTEN, the pool's
 * use, online backup, the commit probe) is null on the other.
 */
export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): DatabaseHandle {
  return target.kind === 'sqlite'
    ? openSqlite(target.file, options.holdUseLock ?? true)
    : openPostgres(target.url, options);
}

/** True when the database answers a trivial query. */
export async function isDatabaseReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
