import { cliActing } from '../audit/audit.ts';
import type { HousekeepingStore } from '../housekeeping.ts';
import { syncMirror } from './sync-mirror.ts';
import type { MirrorDeps, SyncReport } from './mirror-ports.ts';

const TASK = 'mirror-sync';
/** Long enough for a first sync of a large catalogue; a node that dies holding it is replaced after it. */
const LEASE_MS = 60 * 60_000;

/**
 * The server's own sync (APPSTORE_MIRROR_INTERVAL_MINUTES): one node of all, under the
 * housekeeping lease of its own task, once per interval. Null when it was not due or another
 * node holds it.
 */
export async function runScheduledSync(
  leases: Pick<HousekeepingStore, 'takeLease' | 'release'>,
  holder: string,
  intervalMs: number,
  deps: MirrorDeps,
): Promise<SyncReport | null> {
  const now = deps.now();
  const lease = await leases.takeLease(TASK, holder, now, new Date(now.getTime() + LEASE_MS));
  if (!lease.taken) return null;
  if (lease.lastRunAt !== null && now.getTime() - lease.lastRunAt.getTime() < intervalMs) {
    await leases.release(TASK, holder, null);
    return null;
  }
  try {
    return await syncMirror(cliActing('scheduled mirror sync'), deps);
  } finally {
    // A failed sync counts as a run too: it is tried again after the interval, not at every look.
    await leases.release(TASK, holder, now);
  }
}
