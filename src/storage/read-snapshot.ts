import type { Kysely } from 'kysely';
import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './database.ts';
import { readContentVersion } from './repositories/content-version.repository.ts';
import type { Database } from './schema.ts';

/**
 * Reads data together with the content version it belongs to, in one snapshot (a repeatable-read
 * transaction on PostgreSQL; a read transaction on SQLite, which is serialisable), so a rendered
 * listing is never labelled with a version it does not show.
 */
export async function readSnapshot<T>(
  handle: DatabaseHandle,
  read: (db: Kysely<Database>) => Promise<T>,
): Promise<{ stamp: VersionStamp; body: T }> {
  return handle.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const stamp = await readContentVersion(trx);
      return { stamp, body: await read(trx) };
    });
}
