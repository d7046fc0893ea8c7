import { createHash } from 'node:crypto';
import type { Config } from '../config/config.ts';
import type { BrowseSources, CatalogBrowseDeps } from '../domain/browse/browse-catalog.ts';
import { currentCatalog } from '../domain/browse/browse-catalog.ts';
import type { PageCatalog } from '../domain/browse/browse-catalog.ts';
import { AppListingEngine } from '../domain/listings/app-listing-engine.ts';
import type { AppListingReads, AppListingSource } from '../domain/listings/app-listing-engine.ts';
import { withDiscussionLink } from '../domain/listings/discussion-link.ts';
import { partFormat } from '../domain/listings/app-part.ts';
import { ListingCache } from '../domain/listings/listing-cache.ts';
import { AppSchema, ReleaseSchema } from '../domain/listings/listing-schemas.ts';
import { Listings } from '../domain/listings/listings.ts';
import type { ListingSources } from '../domain/listings/listings.ts';
import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import type { StoreMetrics } from '../metrics.ts';
import { appListingSource } from '../storage/app-listing-source.ts';
import { ContentVersionFeed } from '../storage/content-version-feed.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import { inReadSnapshot, readSnapshot } from '../storage/read-snapshot.ts';
import { loadDiscoverEntries } from '../storage/repositories/discover.repository.ts';
import { listCategories } from '../storage/repositories/category.repository.ts';
import {
  findIcon,
  loadAppDetails,
  loadCatalogSources,
  loadIconRefs,
  loadListedRatings,
} from '../storage/repositories/listing.repository.ts';
import { listPlatformReleases } from '../storage/repositories/platform-release.repository.ts';
import { errorText } from '../store-log.ts';
import type { StoreLog } from '../store-log.ts';

/** SQLite (and PostgreSQL without its listening connection): writes by other processes are seen within this. */
const VERSION_POLL_MS = 500;
const LISTEN_RETRY_MS = 5000;
/** What shapes a saved listing part: the listing's schemas and the serialiser (docs/listing-engine.md). */
const SCHEMA_PART_FORMAT = partFormat(AppSchema, ReleaseSchema);

/**
 * The saved parts' format under this configuration: the schemas' and the serialiser's, and the
 * discussion template that fills apps' links (another template: other bytes, rendered again).
 */
export function listingPartFormat(config: Pick<Config, 'discussionUrlTemplate'>): string {
  if (config.discussionUrlTemplate === '') return SCHEMA_PART_FORMAT;
  return createHash('sha256')
    .update(`${SCHEMA_PART_FORMAT} discussion ${config.discussionUrlTemplate}`)
    .digest('base64url')
    .slice(0, 16);
}

/** The engine's source with every app's discussion link filled from the template (docs/configuration). */
function withDiscussionLinks(source: AppListingSource, template: string): AppListingSource {
  if (template === '') return source;
  const filled = (reads: AppListingReads): AppListingReads => ({
    ...reads,
    load: async (ids, recentSince) =>
      (await reads.load(ids, recentSince)).map((found) => ({ ...found, app: withDiscussionLink(found.app, template) })),
  });
  return {
    ...source,
    load: filled(source).load,
    inOneSnapshot: (read) => source.inOneSnapshot((reads) => read(filled(reads))),
  };
}
/**
 * Apps read per query batch by the listing engine, and saved parts per query at a start. On
 * SQLite a batch is a few milliseconds of synchronous work, which the bound keeps short. On
 * PostgreSQL the reads wait on the server instead, but each batch is a snapshot's dozen statements
 * and round trips, which the server plans and answers one by one: with 16 apps a batch, a new
 * database's first render of 600 apps took 1,225 to 1,311 ms against 922 to 1,168 with 256 or
 * more, and a restart read its saved parts in 208 to 339 ms against 169 to 193 in one query
 * (docs/listing-engine.md). The bound left is memory: 256 apps' texts are about 11 MB.
 */
const LISTING_BATCH_APPS = { sqlite: 16, postgres: 256 } as const;
/** On SQLite a few hundred kilobytes a query, a few milliseconds. */
const SAVED_PARTS_BATCH = { sqlite: 32, postgres: 1024 } as const;

/** The listings wing: the content version feed, the listing engine and caches, the website's catalogue. */
export interface ListingsWing {
  readonly versions: ContentVersionFeed;
  readonly listings: Listings;
  readonly browse: CatalogBrowseDeps;
  /** The bytes the listing caches hold now (the metrics read it when scraped). */
  readonly cacheBytes: () => number;
  /** Saves the listing parts not saved yet and stops the version feed (before the database closes). */
  readonly close: () => Promise<void>;
}

export interface ListingsWingOptions {
  readonly listingCacheBytes?: number;
  /** A clock of the caller's (tests): the engine then does not read the wall clock for the day. */
  readonly fixedClock: boolean;
  /** The metrics, once they exist (they read this wing's sizes). */
  readonly metrics: () => StoreMetrics;
  /** Where the change feed's state, a restore noticed and saved parts that failed are reported. */
  readonly log: StoreLog;
}

export function listingsWing(
  config: Config,
  database: DatabaseHandle,
  now: () => Date,
  options: ListingsWingOptions,
): ListingsWing {
  const { db } = database;
  const { log } = options;
  const versions = new ContentVersionFeed(database, {
    pollMs: VERSION_POLL_MS,
    reconnectMs: LISTEN_RETRY_MS,
    report: (event, error) =>
      event === 'lost'
        ? log.warn(
            'content version: not listening for changes on PostgreSQL; polling every 500 ms until the connection is back',
            { error: error?.message },
          )
        : log.info('content version: listening for changes on PostgreSQL'),
    restored: (from: VersionStamp, to: VersionStamp) =>
      log.warn(
        'content version: the database went back to an older version (restored without `appstore restore`?); this node gave it a new epoch, so no ETag given out before names other content',
        { before: `${from.instanceId}-${from.version}`, now: `${to.instanceId}-${to.version}` },
      ),
  });
  const listingSources: ListingSources = {
    ratings: () => readSnapshot(database, loadListedRatings),
    categories: () => readSnapshot(database, listCategories),
    platforms: () => readSnapshot(database, (trx) => listPlatformReleases(trx, { supportedOnly: true })),
    discover: () => readSnapshot(database, loadDiscoverEntries),
  };
  // The website's catalogue: entries for every listed app, an app page's details when it is shown.
  const browseSources: BrowseSources = {
    entries: (recentSince) => readSnapshot(database, (trx) => loadCatalogSources(trx, recentSince)),
    platforms: listingSources.platforms,
    categories: listingSources.categories,
    icons: () => loadIconRefs(db),
    details: async (appId, recentSince) => {
      const details = await inReadSnapshot(database, (trx) => loadAppDetails(trx, appId, recentSince));
      return details === null
        ? null
        : { ...details, app: withDiscussionLink(details.app, config.discussionUrlTemplate) };
    },
  };
  const cacheBytes = options.listingCacheBytes ?? config.listingCacheMiB * 1024 * 1024;
  const engine = new AppListingEngine(withDiscussionLinks(appListingSource(database), config.discussionUrlTemplate), {
    batchSize: LISTING_BATCH_APPS[database.dialect],
    savedBatchSize: SAVED_PARTS_BATCH[database.dialect],
    maxBytes: cacheBytes,
    gzipLevel: 6,
    partFormat: listingPartFormat(config),
    brotliQuality: 5,
    brotliMinSaving: config.listingBrotliMinSaving,
    onPartsError: (error) =>
      log.warn('saved listing parts could not be read or saved: those apps are rendered instead', {
        error: errorText(error),
      }),
    onRender: (what, ms) => options.metrics().listingRender(`apps-${what}`, ms / 1000),
  });
  // The small listings (categories, platforms, ratings) are rendered whole, within the same bound.
  const smallListings = new ListingCache({
    maxBytes: Math.max(1024 * 1024, cacheBytes / 8),
    onRender: (variant, ms) => options.metrics().listingRender(variant, ms / 1000),
  });
  const listings = new Listings(
    listingSources,
    versions,
    engine,
    smallListings,
    now,
    options.fixedClock ? undefined : Date.now,
  );
  return {
    versions,
    listings,
    browse: {
      icon: (hash: string) => findIcon(db, hash),
      catalog: indexedSoon(currentCatalog(browseSources, versions, now)),
    },
    cacheBytes: () => engine.size + smallListings.size,
    close: async () => {
      await engine.finishSaving();
      await versions.close();
    },
  };
}

/** How long after a catalogue is made its words' index is made, unless a search made it first. */
const WORD_INDEX_AFTER_MS = 1000;

/**
 * The catalogues of `catalog`, each one's words' index made a moment after the catalogue (in the
 * background): the pages that asked for the catalogue go first, and a search rarely waits for it.
 */
function indexedSoon(catalog: () => Promise<PageCatalog>): () => Promise<PageCatalog> {
  let scheduled: PageCatalog | null = null;
  return async () => {
    const current = await catalog();
    if (scheduled !== current && !current.index.prepared) {
      scheduled = current;
      setTimeout(() => current.index.prepare(), WORD_INDEX_AFTER_MS).unref();
    }
    return current;
  };
}
