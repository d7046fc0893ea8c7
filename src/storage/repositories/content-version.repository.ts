import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { VersionStamp } from '../../domain/listings/version-stamp.ts';
import type { Database } from '../schema.ts';
import { contentVersionOfRow } from '../content-version-row.ts';

export async function readContentVersion(db: Kysely<Database>): Promise<VersionStamp> {
  const row = await db
    .selectFrom('content_version')
    .select(['version', 'changed_at', 'instance_id'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow(
      () =>
        new AppError(
          'configuration_error',
          'The database has no content version row: it is not migrated. Run `appstore migrate`.',
        ),
    );
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
