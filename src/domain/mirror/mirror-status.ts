import { said } from '../../i18n/said.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Acting } from '../audit/audit.ts';
import type { MirrorDeps, MirrorStatus } from './mirror-ports.ts';

/** `appstore mirror status`: the documents last read and every release considered, listed or not and why. */
export function mirrorStatus(acting: Acting, deps: Pick<MirrorDeps, 'store'>): Promise<MirrorStatus> {
  requireAdmin(acting, said`read the mirror status.`);
  return deps.store.status();
}
