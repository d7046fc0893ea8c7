import type { Transaction } from 'kysely';
import { AppError } from '../errors.ts';
import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import { formatTimestamp, parseTimestamp } from '../domain/timestamps.ts';
import type { Database } from './schema.ts';

// The content version row: read as stored, and moved by every write transaction
// (write-transaction.ts); the repository (repositories/content-version.repository.ts) and the
// change feed read it through these.

/** The content version row read without kysely (SQLite's commit probe, PostgreSQL's prepared read): the columns as stored. */
export const CONTENT_VERSION_QUERY = 'select version, changed_at, instance_id from content_version where id = 1';

export function contentVersionOfRow(row: Record<string, unknown>): VersionStamp {
  return {
    version: Number(row['version']),
    changedAt: parseTimestamp(String(row['changed_at'])),
    instanceId: String(row['instance_id']),
  };
}

/** Called first in every write transaction: it also takes the write lock before any read. Returns the new version. */
export async function bumpContentVersion(trx: Transaction<Database>, now: Date): Promise<VersionStamp> {
  const row = await trx
    .updateTable('content_version')
    .set((eb) => ({ version: eb('version', '+', 1), changed_at: formatTimestamp(now) }))
    .where('id', '=', 1)
    .returning(['version', 'changed_at', 'instance_id'])
    .executeTakeFirstOrThrow(
      () =>
        new AppError(
          'configuration_error',
          'The database has no content version row: it is not migrated. Run `appstore migrate`.',
        ),
    );
  return contentVersionOfRow(row);
}
