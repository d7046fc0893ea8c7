import type { Kysely, Transaction } from 'kysely';
import type { AuditEntry, AuditLog, AuditRecord, AuditEventType } from '../../domain/audit/audit.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { insertAudit } from '../audit-row.ts';

/**
 * Runs `work` and records `entry` in one transaction, when `work` says it changed something
 * (true): a change never goes without its record, nor a record without its change.
 */
export async function auditedWrite<T>(
  db: Kysely<Database>,
  entry: AuditEntry,
  at: Date,
  work: (trx: Transaction<Database>) => Promise<{ changed: boolean; result: T }>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const { changed, result } = await work(trx);
    if (changed) await insertAudit(trx, entry, at);
    return result;
  });
}

export function auditRepository(db: Kysely<Database>): AuditLog {
  return {
    async find(query) {
      let select = db.selectFrom('audit_log').selectAll();
      if (query.appId !== undefined) select = select.where('app_id', '=', query.appId);
      if (query.user !== undefined) {
        const name = query.user;
        select = select.where((eb) =>
          eb.or([eb.and([eb('actor_kind', '=', 'user'), eb('actor_name', '=', name)]), eb('subject_user', '=', name)]),
        );
      }
      if (query.event !== undefined)
        select = query.event.endsWith('.')
          ? select.where('event', 'like', `${query.event.replace(/[^a-z_.]/g, '')}%`)
          : select.where('event', '=', query.event);
      if (query.since !== undefined) select = select.where('at', '>=', formatTimestamp(query.since));
      // The newest `limit`, shown oldest first.
      const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
      return rows.reverse().map((row): AuditRecord => ({
        id: Number(row.id),
        at: parseTimestamp(row.at),
        event: row.event as AuditEventType,
        actor:
          row.actor_kind === 'user'
            ? { kind: 'user', userId: Number(row.actor_user_id), name: row.actor_name }
            : { kind: row.actor_kind === 'cli' ? 'cli' : 'visitor', name: row.actor_name },
        address: row.address,
        requestId: row.request_id,
        appId: row.app_id,
        subjectUser: row.subject_user,
        details: JSON.parse(row.details) as AuditRecord['details'],
      }));
    },
  };
}
