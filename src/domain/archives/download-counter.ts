/**
 * Counting downloads (issue 52): each archive served whole (or from its first byte) is one
 * download of its release, on the day (UTC) it was served. Nothing about who downloaded is kept.
 * Counts gather in memory and are written in one batch every few seconds, so a download costs no
 * write of its own; the batch adds to what is stored (several nodes add theirs alike), and what
 * is gathered is written when the process stops.
 */

/** Downloads of one release on one day (`YYYY-MM-DD`, UTC). */
export interface DownloadDay {
  readonly releaseId: number;
  readonly day: string;
  readonly count: number;
}

export interface DownloadCountStore {
  /** Adds the counts to what is stored, in one transaction; releases deleted meanwhile are skipped. */
  add(batch: readonly DownloadDay[]): Promise<void>;
}

/** A day as the counts name it. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** Counts gathered but not written, past which the oldest writes are retried before more are taken (a database down for long). */
const MAX_PENDING_KEYS = 200_000;

export class DownloadCounter {
  private pending = new Map<string, DownloadDay>();
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: DownloadCountStore,
    private readonly now: () => Date,
    /** A batch that could not be written (it is kept and tried again). */
    private readonly failed: (error: unknown) => void,
  ) {}

  /** One download of the release, now. */
  count(releaseId: number): void {
    const day = dayOf(this.now());
    const key = `${releaseId} ${day}`;
    const seen = this.pending.get(key);
    if (seen !== undefined) {
      this.pending.set(key, { ...seen, count: seen.count + 1 });
      return;
    }
    if (this.pending.size >= MAX_PENDING_KEYS) return;
    this.pending.set(key, { releaseId, day, count: 1 });
  }

  /** Counts not written yet (tests, metrics). */
  get unwritten(): number {
    let total = 0;
    for (const entry of this.pending.values()) total += entry.count;
    return total;
  }

  /** Writes what was gathered; one write at a time. A failed batch goes back to be written next time. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.store.add(batch);
      } catch (error) {
        for (const entry of batch) {
          const key = `${entry.releaseId} ${entry.day}`;
          const later = this.pending.get(key);
          this.pending.set(key, later === undefined ? entry : { ...entry, count: entry.count + later.count });
        }
        this.failed(error);
      }
    });
    return this.writing;
  }

  /** Writes every `intervalMs` (the server); stopped by `close`. */
  start(intervalMs: number): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left (at SIGTERM, before the database closes). */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
