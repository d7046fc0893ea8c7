import type { AuditLog, AuditQuery, AuditRecord } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAdmin } from './authorization.ts';

/** The whole audit log, filtered: administrators only (an app's own trail is in `apps/app-overview.ts`). */
export function readAuditLog(query: AuditQuery, acting: Acting, log: AuditLog): Promise<AuditRecord[]> {
  requireAdmin(acting, 'read the audit log.');
  return log.find(query);
}
