import type { DeleteResult, Kysely, Transaction } from 'kysely';
import type { AuditEntry } from '../domain/audit/audit.ts';
import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import { insertAudit } from './audit-row.ts';
import { bumpContentVersion } from './content-version-row.ts';
import type { Database } from './schema.ts';

export interface WriteOutcome<T> {
  /** False when the work found nothing to change: the transaction is then rolled back. */
  readonly changed: boolean;
  readonly result: T;
}

const NOTHING_CHANGED = Symbol('nothing changed');

type CommitListener = (stamp: VersionStamp) => void;
const commitListeners = new WeakMap<Kysely<Database>, Set<CommitListener>>();

/**
 * Hears of every write committed through this database handle, with the content version it
 * made, before the writer goes on: this process's listings know of its own writes at once.
 * Returns the function that stops listening.
 */
export function onCommittedWrite(db: Kysely<Database>, listener: CommitListener): () => void {
  let listeners = commitListeners.get(db);
  if (listeners === undefined) commitListeners.set(db, (listeners = new Set()));
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The audit entry of a write: fixed, or made from what the write did (null: none). */
export type AuditOf<T> = AuditEntry | ((result: T) => AuditEntry | null);

/**
 * Runs a write in one transaction that also bumps the content version, so listings and their
 * ETags change exactly when the data does, and records its audit entry. A write that changes
 * nothing is rolled back and leaves the version (and every ETag) as it was, and no entry.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  now: Date,
  work: (trx: Transaction<Database>) => Promise<WriteOutcome<T>>,
  audit: AuditOf<T> | null = null,
): Promise<WriteOutcome<T>> {
  let outcome: WriteOutcome<T> | undefined;
  let stamp: VersionStamp | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      stamp = await bumpContentVersion(trx, now);
      outcome = await work(trx);
      if (!outcome.changed) throw NOTHING_CHANGED;
      const entry = typeof audit === 'function' ? audit(outcome.result) : audit;
      if (entry !== null) await insertAudit(trx, entry, now);
    });
  } catch (error) {
    if (error !== NOTHING_CHANGED) throw error;
  }
  if (outcome === undefined) throw new Error('write transaction finished without an outcome');
  if (outcome.changed && stamp !== undefined) for (const listener of commitListeners.get(db) ?? []) listener(stamp);
  return outcome;
}

/**
 * A delete in a write transaction: true when it removed a row (and moved the content version),
 * false when there was nothing to delete, as when a concurrent delete won.
 */
export async function deleteInWriteTransaction(
  db: Kysely<Database>,
  now: Date,
  remove: (trx: Transaction<Database>) => Promise<DeleteResult>,
  audit: AuditEntry | null = null,
): Promise<boolean> {
  const { result } = await writeTransaction(
    db,
    now,
    async (trx) => {
      const removed = Number((await remove(trx)).numDeletedRows) > 0;
      return { changed: removed, result: removed };
    },
    audit,
  );
  return result;
}
