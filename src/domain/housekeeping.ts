/**
 * Periodic pruning of rows that only ever grow: expired sessions, mailed links and external sign-ins, rate-limit
 * hits older than any window, and the saved listing parts of formats no running node uses.
 * Several nodes share the database: a lease in the database lets one node run it at a time, and
 * the time of the last run keeps it to once per interval in all.
 */
export interface HousekeepingStore {
  /** Takes (or renews) the task's lease for `holder` until `until`, unless another holder's lease runs; also tells when the task last ran. */
  takeLease(task: string, holder: string, now: Date, until: Date): Promise<{ taken: boolean; lastRunAt: Date | null }>;
  /** Gives the lease up, recording when the task ran (null: it did not run). */
  release(task: string, holder: string, ranAt: Date | null): Promise<void>;
  pruneSessions(now: Date): Promise<number>;
  pruneLinks(now: Date): Promise<number>;
  /** External sign-ins begun and never finished. */
  pruneLoginFlows(now: Date): Promise<number>;
  pruneRateLimitHits(before: Date): Promise<number>;
  /** Publishes started from the developer pages before `before` . */
  prunePublishJobs(before: Date): Promise<number>;
  /**
   * Tokens expired before `personalBefore` (a user's: the account page shows them expired for a
   * while) or `publishingBefore` (trusted publishing's), and the used ID tokens past their expiry.
   */
  pruneTokens(personalBefore: Date, publishingBefore: Date, now: Date): Promise<number>;
  /** Records that this node uses this listing part format now. */
  markPartFormatInUse(format: string, now: Date): Promise<void>;
  /** Removes the saved listing parts of formats no node has marked since `before`; the parts removed. */
  prunePartFormats(before: Date): Promise<number>;
}

export interface HousekeepingDeps {
  readonly store: HousekeepingStore;
  readonly now: () => Date;
  /** This node, as leases name it. */
  readonly holder: string;
  readonly intervalMs: number;
  /** Rate-limit hits older than this are never counted again (the longest window of any rule). */
  readonly rateLimitRetentionMs: number;
  /** This node's listing part format (every node marks its own at each look, so parts of a format in use are kept). */
  readonly partFormat: string;
}

export interface HousekeepingReport {
  readonly sessions: number;
  readonly links: number;
  readonly loginFlows: number;
  readonly rateLimitHits: number;
  readonly listingParts: number;
  readonly publishJobs: number;
  readonly tokens: number;
}

const TASK = 'prune';
const LEASE_MS = 5 * 60_000;

/** Saved listing parts of a format no node has used for this long are removed (the nodes of an upgrade are all replaced). */
const PART_FORMAT_RETENTION_MS = 86_400_000;
/** A publish's page is kept a week (the developer may come back to read a refusal). */
const PUBLISH_JOB_RETENTION_MS = 7 * 86_400_000;
/** An expired token stays listed (as expired) for 30 days, so its owner sees what stopped working. */
const EXPIRED_TOKEN_RETENTION_MS = 30 * 86_400_000;

/**
 * Marks this node's listing part format as in use, then runs the pruning when it is due and no
 * other node runs it; null when it did not run.
 */
export async function runHousekeeping(deps: HousekeepingDeps): Promise<HousekeepingReport | null> {
  const now = deps.now();
  await deps.store.markPartFormatInUse(deps.partFormat, now);
  const lease = await deps.store.takeLease(TASK, deps.holder, now, new Date(now.getTime() + LEASE_MS));
  if (!lease.taken) return null;
  if (lease.lastRunAt !== null && now.getTime() - lease.lastRunAt.getTime() < deps.intervalMs) {
    await deps.store.release(TASK, deps.holder, null);
    return null;
  }
  const report = {
    sessions: await deps.store.pruneSessions(now),
    links: await deps.store.pruneLinks(now),
    loginFlows: await deps.store.pruneLoginFlows(now),
    rateLimitHits: await deps.store.pruneRateLimitHits(new Date(now.getTime() - deps.rateLimitRetentionMs)),
    listingParts: await deps.store.prunePartFormats(new Date(now.getTime() - PART_FORMAT_RETENTION_MS)),
    publishJobs: await deps.store.prunePublishJobs(new Date(now.getTime() - PUBLISH_JOB_RETENTION_MS)),
    tokens: await deps.store.pruneTokens(
      new Date(now.getTime() - EXPIRED_TOKEN_RETENTION_MS),
      new Date(now.getTime() - 86_400_000),
      now,
    ),
  };
  await deps.store.release(TASK, deps.holder, now);
  return report;
}
