import type { Config } from './config.ts';
import type { CatalogStore } from './domain/catalog/import-catalog.ts';
import { coalesce } from './domain/listings/coalesce.ts';
import { ListingCache } from './domain/listings/listing-cache.ts';
import type { VersionStamp } from './domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { openDatabase } from './storage/database.ts';
import { upsertCategories } from './storage/repositories/category.repository.ts';
import { readContentVersion } from './storage/repositories/content-version.repository.ts';
import { upsertPlatformReleases } from './storage/repositories/platform-release.repository.ts';

/** Everything the HTTP routes and the CLI commands share: built once per process. */
export interface Container {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly readVersion: () => Promise<VersionStamp>;
  readonly listingCache: ListingCache;
  readonly catalog: CatalogStore;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Use this database instead of opening the configured one (tests). */
  readonly database?: DatabaseHandle;
  readonly listingCacheBytes?: number;
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const database = options.database ?? openDatabase(config.database);
  const { db } = database;
  return {
    config,
    database,
    readVersion: coalesce(() => readContentVersion(db)),
    listingCache: new ListingCache({ maxBytes: options.listingCacheBytes ?? 256 * 1024 * 1024 }),
    catalog: {
      upsertCategories: (categories) => upsertCategories(db, categories),
      upsertPlatformReleases: (releases) => upsertPlatformReleases(db, releases),
    },
    close: () => database.close(),
  };
}
