import type { Kysely } from 'kysely';
import type { AppListingReads, AppListingSource } from '../domain/listings/app-listing-engine.ts';
import type { DatabaseHandle } from './database.ts';
import { inReadSnapshot } from './read-snapshot.ts';
import { readContentVersion } from './repositories/content-version.repository.ts';
import { loadSavedParts, saveParts } from './repositories/listing-part.repository.ts';
import { countRecentRatings, loadListedAppIndex, loadListingApps } from './repositories/listing.repository.ts';
import type { Database } from './schema.ts';

/** The engine's reads through `db`: a transaction's connection, or the pool when each read takes a snapshot of its own. */
function readsThrough(db: Kysely<Database>, copyRows: DatabaseHandle['copyRows'] = null): AppListingReads {
  return {
    index: async () => ({ stamp: await readContentVersion(db), apps: await loadListedAppIndex(db) }),
    load: (ids, recentSince) => loadListingApps(db, recentSince, ids),
    recentRatingCounts: (recentSince) => countRecentRatings(db, recentSince),
    savedParts: (ids, format) => loadSavedParts(db, ids, format, copyRows),
  };
}

/**
 * The listing engine's source. The index and each batch of apps are read in a snapshot of their
 * own: on PostgreSQL the dozen queries of a batch would otherwise run on several pooled
 * connections, each seeing the commits made up to its own start, and an app could be read half
 * before and half after a write (a release without its ExApp data, labelled with either version).
 */
export function appListingSource(database: DatabaseHandle): AppListingSource {
  const db = database.db;
  const inSnapshot = <T>(read: (reads: AppListingReads) => Promise<T>): Promise<T> =>
    inReadSnapshot(database, (trx) => read(readsThrough(trx)));
  return {
    // The counts and the saved parts need no snapshot: each is checked against the index.
    ...readsThrough(db, database.copyRows),
    index: () => inSnapshot((reads) => reads.index()),
    load: (ids, recentSince) => inSnapshot((reads) => reads.load(ids, recentSince)),
    inOneSnapshot: inSnapshot,
    saveParts: (parts, format) => saveParts(db, parts, format),
  };
}
