import type { Transaction } from 'kysely';
import type { AuditEntry } from '../domain/audit/audit.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import type { Database } from './schema.ts';

// An audit entry's row, written inside the transaction of the change it records
// (write-transaction.ts, and the repositories' own audited writes).

/** Writes the entry; called inside the transaction of the change it records. */
export async function insertAudit(trx: Transaction<Database>, entry: AuditEntry, at: Date): Promise<void> {
  const { actor } = entry.acting;
  await trx
    .insertInto('audit_log')
    .values({
      at: formatTimestamp(at),
      event: entry.event,
      actor_kind: actor.kind,
      actor_user_id: actor.kind === 'user' ? actor.userId : null,
      actor_name: actor.name,
      address: entry.acting.address,
      request_id: entry.acting.requestId,
      app_id: entry.appId,
      subject_user: entry.subjectUser,
      details: JSON.stringify(entry.details),
    })
    .execute();
}
