import type { RecentWindow } from '../listings/rating-aggregate.ts';
import { reaches, supersedes } from '../listings/version-stamp.ts';
import type { VersionStamp } from '../listings/version-stamp.ts';

/** Data read at one content version, for the day its recent-rating window was computed for. */
export interface DaySnapshot {
  readonly stamp: VersionStamp;
  readonly day: string;
}

/**
 * The newest snapshot of some data derived from the whole catalogue, read once per content
 * version and day, and shared by every request that needs it (the website's catalogue view).
 * Concurrent requests share one load; only the newest is kept.
 */
export class LatestSnapshot<T extends DaySnapshot> {
  private latest: T | undefined;
  private pending: Promise<T> | undefined;

  /** `load` reads the data with the recent-rating window given, and names the snapshot by its day. */
  constructor(private readonly load: (window: RecentWindow) => Promise<T>) {}

  async get(window: RecentWindow, wanted: VersionStamp): Promise<T> {
    const { day } = window;
    const fresh = (s: T | undefined): s is T => s !== undefined && s.day === day && reaches(s.stamp, wanted);
    if (fresh(this.latest)) return this.latest;
    if (this.pending !== undefined) {
      const shared = await this.pending;
      if (fresh(shared)) return shared;
    }
    const job = this.load(window).then((snapshot) => {
      if (supersedes(snapshot.stamp, this.latest?.stamp)) this.latest = snapshot;
      return snapshot;
    });
    const shared: Promise<T> = job.finally(() => {
      if (this.pending === shared) this.pending = undefined;
    });
    // The caller handles `job`'s failure; `shared` is awaited only by a request beside it, so its
    // own rejection is marked handled here: unhandled, it would end the process (a database that
    // fails while the catalogue is read, or is closed under a read at shutdown).
    shared.catch(() => undefined);
    this.pending = shared;
    return job;
  }
}
