import type { Kysely } from 'kysely';
import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './database.ts';
import { readContentVersion } from './repositories/content-version.repository.ts';
import type { Database } from './schema.ts';

/**
 * Runs reads in one snapshot: a repeatable-read transaction on PostgreSQL (on one connection, so
 * queries that would run side by side on the pool, each with a snapshot of its own, agree); a read
 * transaction on SQLite, which is serialisable.
 */
export function inReadSnapshot<T>(handle: DatabaseHandle, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return handle.db.transaction().setIsolationLevel('repeatable read').execute(read);
}

/**
 * Reads data together with the content version it belongs to, in one snapshot, so a rendered
 * listing is never labelled with a version it does not show.
 */
export function readSnapshot<T>(
  handle: DatabaseHandle,
  read: (db: Kysely<Database>) => Promise<T>,
): Promise<{ stamp: VersionStamp; body: T }> {
  return inReadSnapshot(handle, async (trx) => {
    const stamp = await readContentVersion(trx);
    return { stamp, body: await read(trx) };
  });
}
