import type { Kysely, Transaction } from 'kysely';
import { bumpContentVersion } from './repositories/content-version.repository.ts';
import type { Database } from './schema.ts';

export interface WriteOutcome<T> {
  /** False when the work found nothing to change: the transaction is then rolled back. */
  readonly changed: boolean;
  readonly result: T;
}

const NOTHING_CHANGED = Symbol('nothing changed');

/**
 * Runs a write in one transaction that also bumps the content version, so listings and their
 * ETags change exactly when the data does. A write that changes nothing is rolled back and
 * leaves the version (and every ETag) as it was.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  now: Date,
  work: (trx: Transaction<Database>) => Promise<WriteOutcome<T>>,
): Promise<WriteOutcome<T>> {
  let outcome: WriteOutcome<T> | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      await bumpContentVersion(trx, now);
      outcome = await work(trx);
      if (!outcome.changed) throw NOTHING_CHANGED;
    });
  } catch (error) {
    if (error !== NOTHING_CHANGED) throw error;
  }
  if (outcome === undefined) throw new Error('write transaction finished without an outcome');
  return outcome;
}
