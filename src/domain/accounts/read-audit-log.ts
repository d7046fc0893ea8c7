import { said } from '../../i18n/said.ts';
import type { AuditLog, AuditQuery, AuditRecord } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAdmin } from './authorization.ts';

/**
 * The whole audit log, filtered, newest first (as a page shows it; `appstore audit` prints the
 * oldest first, like a log file): administrators only (an app's own trail is in `apps/app-overview.ts`).
 */
export async function readAuditLog(query: AuditQuery, acting: Acting, log: AuditLog): Promise<AuditRecord[]> {
  requireAdmin(acting, said`read the audit log.`);
  return (await log.find(query)).reverse();
}
