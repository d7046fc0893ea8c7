import { AppError } from '../../errors.ts';
import type { Kysely, Transaction } from 'kysely';
import type { VersionStamp } from '../../domain/listings/version-stamp.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';

export async function readContentVersion(db: Kysely<Database>): Promise<VersionStamp> {
  const row = await db
    .selectFrom('content_version')
    .select(['version', 'changed_at', 'instance_id'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow(() => new AppError('configuration_error', 'The database has no content version row: it is not migrated. Run `appstore migrate`.'));
  return { version: Number(row.version), changedAt: parseTimestamp(row.changed_at), instanceId: row.instance_id };
}

/** Called first in every write transaction: it also takes the write lock before any read. */
export async function bumpContentVersion(trx: Transaction<Database>, now: Date): Promise<void> {
  await trx
    .updateTable('content_version')
    .set((eb) => ({ version: eb('version', '+', 1), changed_at: formatTimestamp(now) }))
    .where('id', '=', 1)
    .execute();
}
