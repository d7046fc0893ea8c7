import type { AppFragment } from './app-listing.ts';
import type { RecentWindow } from './rating-aggregate.ts';
import type { VersionStamp } from './version-stamp.ts';

export interface FragmentSnapshot {
  readonly stamp: VersionStamp;
  /** The day the recent-rating window was computed for. */
  readonly day: string;
  readonly fragments: readonly AppFragment[];
}

/**
 * The apps serialised once per content version and day, shared by apps.json and every
 * platform listing: a platform variant costs a filter and a concatenation, not a render.
 * Only the newest snapshot is kept.
 */
export class FragmentSnapshots {
  private latest: FragmentSnapshot | undefined;
  private pending: Promise<FragmentSnapshot> | undefined;

  /** `load` reads the apps with the recent-rating window given, and names the snapshot by its day. */
  constructor(private readonly load: (window: RecentWindow) => Promise<FragmentSnapshot>) {}

  async get(window: RecentWindow, minVersion: number): Promise<FragmentSnapshot> {
    const { day } = window;
    const fresh = (s: FragmentSnapshot | undefined): s is FragmentSnapshot => s !== undefined && s.day === day && s.stamp.version >= minVersion;
    if (fresh(this.latest)) return this.latest;
    if (this.pending !== undefined) {
      const shared = await this.pending;
      if (fresh(shared)) return shared;
    }
    const job = this.load(window).then((snapshot) => {
      if (this.latest === undefined || snapshot.stamp.version >= this.latest.stamp.version) this.latest = snapshot;
      return snapshot;
    });
    const shared: Promise<FragmentSnapshot> = job.finally(() => {
      if (this.pending === shared) this.pending = undefined;
    });
    this.pending = shared;
    return job;
  }
}
