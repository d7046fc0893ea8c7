import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import { sortCategories } from '../catalog/catalog.ts';
import type { AppFragment, ListedApp } from './app-listing.ts';
import { assembleAppListing, toFragment } from './app-listing.ts';
import type { DaySnapshot } from './latest-snapshot.ts';
import { LatestSnapshot } from './latest-snapshot.ts';
import type { ListingCache, Render, RenderedListing } from './listing-cache.ts';
import { recentWindowStart } from './rating-aggregate.ts';
import type { VersionStamp } from './version-stamp.ts';
import { listingEtag } from './version-stamp.ts';

/** A rating as ratings.json shows it (api.md, Rating). */
export interface ListedRating {
  readonly rating: number;
  readonly ratedAt: string;
  readonly translations: Readonly<Record<string, { comment: string }>>;
  readonly user: { readonly id: number; readonly firstName: string; readonly lastName: string };
  readonly app: string;
}

/** Data read together with the content version it belongs to, in one consistent snapshot. */
export interface Snapshot<T> {
  readonly stamp: VersionStamp;
  readonly body: T;
}

/** Where the listings' data comes from (storage, built by the container). */
export interface ListingSources {
  /** The content version: cheap, asked on every request (a 304 needs nothing else). */
  readVersion(): Promise<VersionStamp>;
  /** Apps with at least one release; ratings at or after `recentSince` count as recent. */
  apps(recentSince: string): Promise<Snapshot<ListedApp[]>>;
  ratings(): Promise<Snapshot<ListedRating[]>>;
  categories(): Promise<Snapshot<Category[]>>;
  /** The supported ones, newest first. */
  platforms(): Promise<Snapshot<PlatformRelease[]>>;
}

/**
 * The apps serialised once per content version and day, shared by apps.json and every platform
 * listing: a platform variant costs a filter and a concatenation, not a render.
 */
interface FragmentSnapshot extends DaySnapshot {
  readonly fragments: readonly AppFragment[];
}

/** The listings Nextcloud servers poll. */
export type ListingName =
  | { readonly kind: 'apps'; readonly includeEnterprise: boolean; readonly platform?: string }
  | { readonly kind: 'ratings' }
  | { readonly kind: 'categories' }
  | { readonly kind: 'platforms' };

/** One listing as it stands now: enough to answer a conditional request, and its body on demand. */
export interface Listing {
  readonly etag: string;
  readonly changedAt: Date;
  /** Rendered and compressed once per content version (and day, for app listings). */
  body(): Promise<RenderedListing>;
}

/**
 * The listings use case: which variant a request names (its cache key and ETag), and how that
 * variant is rendered. App listings are assembled from per-app fragments shared by apps.json and
 * every platform variant; they carry the day, since the recent ratings move with it.
 */
export class Listings {
  private readonly snapshots: LatestSnapshot<FragmentSnapshot>;

  constructor(
    private readonly sources: ListingSources,
    readonly cache: ListingCache,
    private readonly now: () => Date,
  ) {
    this.snapshots = new LatestSnapshot(async (window) => {
      const { stamp, body } = await sources.apps(window.since);
      return { stamp, day: window.day, fragments: body.map(toFragment) };
    });
  }

  currentVersion(): Promise<VersionStamp> {
    return this.sources.readVersion();
  }

  async open(name: ListingName): Promise<Listing> {
    const stamp = await this.sources.readVersion();
    const { variant, render } = this.variant(name);
    return { etag: listingEtag(stamp, variant), changedAt: stamp.changedAt, body: () => this.cache.get(variant, stamp.version, render) };
  }

  private variant(name: ListingName): { variant: string; render: Render } {
    switch (name.kind) {
      case 'ratings':
        return { variant: 'ratings', render: () => this.sources.ratings() };
      case 'categories':
        return {
          variant: 'categories',
          render: async () => {
            const { stamp, body } = await this.sources.categories();
            return { stamp, body: sortCategories(body) };
          },
        };
      case 'platforms':
        return { variant: 'platforms', render: () => this.sources.platforms() };
      case 'apps': {
        const window = recentWindowStart(this.now());
        const listing = name.platform === undefined ? 'apps' : `platform-${name.platform}`;
        return {
          variant: `${listing}-${window.day}-${name.includeEnterprise ? 'all' : 'public'}`,
          render: async (minVersion) => {
            const snapshot = await this.snapshots.get(window, minVersion);
            return { stamp: snapshot.stamp, json: assembleAppListing(snapshot.fragments, name) };
          },
        };
      }
    }
  }
}
