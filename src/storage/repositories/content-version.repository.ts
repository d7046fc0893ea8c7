import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { VersionStamp } from '../../domain/listings/version-stamp.ts';
import type { Database } from '../schema.ts';
import { CONTENT_VERSION_QUERY, contentVersionOfRow } from '../content-version-row.ts';
import type { DatabaseHandle } from '../database-handle.ts';

const notMigrated = (): AppError =>
  new AppError(
    'configuration_error',
    'The database has no content version row: it is not migrated. Run `appstore migrate`.',
  );

export async function readContentVersion(db: Kysely<Database>): Promise<VersionStamp> {
  const row = await db
    .selectFrom('content_version')
    .select(['version', 'changed_at', 'instance_id'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow(notMigrated);
  return contentVersionOfRow(row);
}

/**
 * The same read, as a statement prepared once per connection where the database offers that
 * (PostgreSQL, which reads it before every GET): about a quarter less of the store's and the
 * server's time per read than through the query builder (issue 55).
 */
export async function readContentVersionOften(
  handle: Pick<DatabaseHandle, 'db' | 'readPrepared'>,
): Promise<VersionStamp> {
  if (handle.readPrepared === null) return readContentVersion(handle.db);
  const row = await handle.readPrepared('appstore_content_version', CONTENT_VERSION_QUERY);
  if (row === undefined) throw notMigrated();
  return contentVersionOfRow(row);
}

/** A new random epoch (VersionStamp.instanceId) for a database. */
export function newEpoch(): string {
  return randomBytes(6).toString('hex');
}

/**
 * Gives the database a new epoch: after a restore, after a migration of the data, and, with
 * `found`, only when it is still at that version (another node may have renewed it first).
 */
export async function renewEpoch(db: Kysely<Database> | Transaction<Database>, found?: VersionStamp): Promise<void> {
  let update = db.updateTable('content_version').set({ instance_id: newEpoch() }).where('id', '=', 1);
  if (found !== undefined)
    update = update.where('instance_id', '=', found.instanceId).where('version', '=', found.version);
  await update.execute();
}

/**
 * Records that this write changes what the listings show of these apps (called inside the write
 * transaction, after the bump): the listing engine re-renders exactly the apps whose number moved.
 */
export async function markAppsChanged(trx: Transaction<Database>, appIds: readonly string[]): Promise<void> {
  if (appIds.length === 0) return;
  await trx
    .updateTable('apps')
    .set({ listing_version: sql<number>`(select version from content_version where id = 1)` })
    .where('id', 'in', appIds)
    .execute();
}
