import type { Readable } from 'node:stream';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import { sortCategories } from '../catalog/catalog.ts';
import type { DiscoverEntry } from '../discover/discover-document.ts';
import { currentEntries } from '../discover/discover-document.ts';
import type { AppListingEngine } from './app-listing-engine.ts';
import type { ByteChunks } from './gzip-parts.ts';
import { chunksOf, gunzipStream } from './gzip-parts.ts';
import type { ListingCache, Render } from './listing-cache.ts';
import type { RecentWindow } from './rating-aggregate.ts';
import { recentWindowStart, windowDay } from './rating-aggregate.ts';
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

/** Where the small listings' data comes from (storage, built by the container). */
export interface ListingSources {
  ratings(): Promise<Snapshot<ListedRating[]>>;
  categories(): Promise<Snapshot<Category[]>>;
  /** The supported ones, newest first. */
  platforms(): Promise<Snapshot<PlatformRelease[]>>;
  /** Every discover entry, expired ones included, in their order. */
  discover(): Promise<Snapshot<DiscoverEntry[]>>;
}

/** The content version as this process knows it, without a database round trip (storage's feed). */
export interface VersionSource {
  /** The newest version known; undefined until the first read. */
  readonly current: VersionStamp | undefined;
  /** The newest version known, read the first time. */
  ready(): Promise<VersionStamp>;
  /** Reads the version from the database now. */
  refresh(): Promise<VersionStamp>;
}

/** The listings Nextcloud servers poll. */
export type ListingName =
  | {
      readonly kind: 'apps';
      readonly includeEnterprise: boolean;
      readonly platform?: string;
      readonly exApps?: boolean;
    }
  | { readonly kind: 'ratings' }
  | { readonly kind: 'categories' }
  | { readonly kind: 'platforms' }
  | { readonly kind: 'discover' };

/** One listing body at one content version, in the encodings it has. */
export interface ListingBody {
  readonly stamp: VersionStamp;
  readonly etag: string;
  /** Bytes of the JSON text. */
  readonly length: number;
  /** Null when that compression is not available (yet, for brotli; or not smaller). */
  readonly gzip: ByteChunks | null;
  readonly br: ByteChunks | null;
  /** The JSON text: held, or decompressed on the way out when only the compressed body is kept. */
  identity(): Buffer | Readable;
}

/** What a conditional request is compared with, and the version and day they were derived from. */
export interface Validators {
  readonly etag: string;
  readonly changedAt: Date;
  readonly stamp: VersionStamp;
  readonly day: string;
}

/** One listing as it stands now: enough to answer a conditional request, and its body on demand. */
export interface Listing {
  readonly etag: string;
  readonly changedAt: Date;
  /** The body; `acceptsBrotli` when the client would take brotli (only then is it compressed in brotli, in the background). */
  body(acceptsBrotli: boolean): Promise<ListingBody>;
}

/**
 * The listings use case: which variant a request names (its cache key and ETag), and how that
 * variant is made. App listings come from the engine (one compressed part per app, assembled);
 * the small ones are rendered whole once per content version. App listings carry the day, since
 * the recent ratings move with it.
 */
export class Listings {
  /** The render `warm` started (settled, never rejected). */
  private warming: Promise<void> = Promise.resolve();

  constructor(
    private readonly sources: ListingSources,
    private readonly versions: VersionSource,
    readonly engine: AppListingEngine,
    readonly cache: ListingCache,
    private readonly now: () => Date,
    /** The same clock in milliseconds (Date.now in production: a 304 allocates no Date). */
    private readonly nowMs: () => number = () => now().getTime(),
  ) {}

  /**
   * Reads the version, so conditional requests are answered from memory from the first one on.
   * Before the port opens: it is one small query.
   */
  async readVersion(): Promise<void> {
    await this.versions.ready();
  }

  /**
   * Renders apps.json, as servers ask for it first, in the background: started once the port is
   * open, so a start answers its first requests before it has read the catalogue (issue 55). A
   * request for apps.json meanwhile waits for this render rather than making its own.
   */
  warm(): void {
    this.warming = this.versions
      .ready()
      .then((stamp) => this.engine.body({ includeEnterprise: false }, recentWindowStart(this.now()), stamp))
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /** Resolves once the render `warm` started is over (made, or failed: the next request tries again). */
  warmed(): Promise<void> {
    return this.warming;
  }

  /** Resolves once the app listings' renders under way now are over (AppListingEngine.inFlightSettled). */
  rendersSettled(): Promise<void> {
    return this.engine.inFlightSettled();
  }

  /** True when the app listings can be served from memory, whether or not the database answers now (/healthz). */
  get servable(): boolean {
    return this.versions.current !== undefined && this.engine.holding;
  }

  /**
   * The entity tag and date a conditional request is compared with, from the version known in
   * memory: no database work, no rendering. Undefined before the version was first read.
   */
  validatorsOf(name: ListingName): Validators | undefined {
    const stamp = this.versions.current;
    if (stamp === undefined) return undefined;
    const day = this.today();
    return { etag: listingEtag(stamp, this.variantName(name, day)), changedAt: stamp.changedAt, stamp, day };
  }

  /**
   * True while validators made earlier still hold: the same content version object and the same
   * day. Two comparisons, so a caller may keep what it derived from them (the 304's headers).
   */
  stillValid(validators: Validators): boolean {
    return validators.stamp === this.versions.current && validators.day === this.today();
  }

  /** The recent-rating window's day, recomputed only when the clock has left the day known. */
  private today(): string {
    const at = this.nowMs();
    if (at < this.dayStartsAt || at >= this.dayStartsAt + 86_400_000) {
      this.dayStartsAt = at - (at % 86_400_000);
      this.day = windowDay(new Date(at));
    }
    return this.day;
  }

  private dayStartsAt = Number.NEGATIVE_INFINITY;
  private day = '';

  async open(name: ListingName): Promise<Listing> {
    const stamp = this.versions.current ?? (await this.versions.ready());
    // One window per request: the body is the one the ETag names, even across midnight.
    const window = recentWindowStart(this.now());
    const variant = this.variantName(name, window.day);
    return {
      etag: listingEtag(stamp, variant),
      changedAt: stamp.changedAt,
      body: (acceptsBrotli) => this.render(name, variant, window, stamp, acceptsBrotli),
    };
  }

  private variantName(name: ListingName, day: string): string {
    // discover.json leaves out what expired: it changes with the day, as the app listings do.
    if (name.kind === 'discover') return `discover-${day}`;
    if (name.kind !== 'apps') return name.kind;
    const listing =
      name.exApps === true ? 'appapi' : name.platform === undefined ? 'apps' : `platform-${name.platform}`;
    return `${listing}-${day}-${name.includeEnterprise ? 'all' : 'public'}`;
  }

  private async render(
    name: ListingName,
    variant: string,
    window: RecentWindow,
    wanted: VersionStamp,
    acceptsBrotli: boolean,
  ): Promise<ListingBody> {
    if (name.kind === 'apps') {
      const body = await this.engine.body(name, window, wanted);
      const gzip = body.gzip;
      const br = acceptsBrotli ? body.brotli() : body.brotliIfMade();
      return {
        stamp: body.stamp,
        etag: listingEtag(body.stamp, variant),
        length: body.length,
        // An empty listing is smaller as it is.
        gzip: gzip.byteLength < body.length ? gzip : null,
        br: br === null ? null : chunksOf(br),
        identity: () => gunzipStream(gzip),
      };
    }
    const rendered = await this.cache.get(variant, wanted, this.smallRender(name, window.day));
    return {
      stamp: rendered.stamp,
      etag: rendered.etag,
      length: rendered.identity.length,
      gzip: rendered.gzip === null ? null : chunksOf(rendered.gzip),
      br: rendered.br === null ? null : chunksOf(rendered.br),
      identity: () => rendered.identity,
    };
  }

  private smallRender(name: Exclude<ListingName, { kind: 'apps' }>, day: string): Render {
    switch (name.kind) {
      case 'discover':
        return async () => {
          const { stamp, body } = await this.sources.discover();
          return { stamp, body: currentEntries(body, day) };
        };
      case 'ratings':
        return () => this.sources.ratings();
      case 'categories':
        return async () => {
          const { stamp, body } = await this.sources.categories();
          return { stamp, body: sortCategories(body) };
        };
      case 'platforms':
        return () => this.sources.platforms();
    }
  }
}
