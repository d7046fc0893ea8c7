import { auditEntry, cliActing } from '../../src/domain/audit/audit.ts';
import type { AuditEntry } from '../../src/domain/audit/audit.ts';

/** The test suite acting as the command line would. */
export const TEST_ACTING = cliActing('test-suite');

/** An audit entry for tests that write through a store directly (what it says does not matter to them). */
export const testAudit = (): AuditEntry => auditEntry(TEST_ACTING, 'app.flags_changed', { details: { by: 'a test' } });
