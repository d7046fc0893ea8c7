import type { Kysely, Selectable } from 'kysely';
import type {
  CertificateRequest,
  CertificateRequestStore,
  RequestStatus,
} from '../../domain/identity/request-certificate.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { CertificateRequestsTable, Database } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';

type Row = Selectable<CertificateRequestsTable> & { username: string | null };

function toRequest(row: Row): CertificateRequest {
  return {
    id: Number(row.id),
    userId: row.user_id === null ? null : Number(row.user_id),
    username: row.username,
    appId: row.app_id,
    csr: row.csr,
    status: row.status as RequestStatus,
    certificate: row.certificate,
    serial: row.serial,
    reason: row.reason,
    createdAt: parseTimestamp(row.created_at),
    decidedAt: row.decided_at === null ? null : parseTimestamp(row.decided_at),
    decidedBy: row.decided_by,
  };
}

/** Certificate requests from the developer pages, issued or waiting for an administrator. */
export function certificateRequestRepository(db: Kysely<Database>): CertificateRequestStore {
  const select = () =>
    db
      .selectFrom('certificate_requests')
      .leftJoin('users', 'users.id', 'certificate_requests.user_id')
      .selectAll('certificate_requests')
      .select('users.username');
  return {
    async add(request, issued, now, audit) {
      const at = formatTimestamp(now);
      return auditedWrite(db, audit, now, async (trx) => {
        const row = await trx
          .insertInto('certificate_requests')
          .values({
            user_id: request.userId,
            app_id: request.appId,
            csr: request.csr,
            status: issued === null ? 'pending' : 'issued',
            certificate: issued?.certificate ?? null,
            serial: issued?.serial ?? null,
            created_at: at,
            decided_at: issued === null ? null : at,
            decided_by: issued?.by ?? null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { changed: true, result: Number(row.id) };
      });
    },
    async decide(id, decision, by, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const updated = await trx
          .updateTable('certificate_requests')
          .set({
            status: decision.status,
            certificate: decision.status === 'issued' ? decision.certificate : null,
            serial: decision.status === 'issued' ? decision.serial : null,
            reason: decision.status === 'rejected' ? decision.reason : '',
            decided_at: formatTimestamp(now),
            decided_by: by,
          })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        const changed = Number(updated.numUpdatedRows) > 0;
        return { changed, result: changed };
      });
    },
    async find(id) {
      const row = await select().where('certificate_requests.id', '=', id).executeTakeFirst();
      return row === undefined ? null : toRequest(row);
    },
    async list(filter, limit) {
      let query = select();
      if (filter.status !== undefined) query = query.where('certificate_requests.status', '=', filter.status);
      if (filter.userId !== undefined) query = query.where('certificate_requests.user_id', '=', filter.userId);
      return (await query.orderBy('certificate_requests.id', 'desc').limit(limit).execute()).map(toRequest);
    },
    async listIssuedFor(appId, since) {
      const rows = await select()
        .where('certificate_requests.app_id', '=', appId)
        .where('certificate_requests.status', '=', 'issued')
        .where('certificate_requests.decided_at', '>=', formatTimestamp(since))
        .orderBy('certificate_requests.id')
        .execute();
      return rows.map(toRequest);
    },
    async findIssuedBySerial(serial) {
      const row = await select()
        .where('certificate_requests.serial', '=', serial)
        .where('certificate_requests.status', '=', 'issued')
        .executeTakeFirst();
      return row === undefined ? null : toRequest(row);
    },
  };
}
