import type { Config } from './config.ts';
import type { SessionDeps } from './domain/accounts/sessions.ts';
import type { SecretKeys } from './domain/accounts/secret-key.ts';
import { deriveKeys, loadSecret } from './domain/accounts/secret-key.ts';
import type { AccountStore } from './domain/accounts/user.ts';
import { RateLimiter } from './domain/rate-limit.ts';
import type { CatalogStore } from './domain/catalog/import-catalog.ts';
import { coalesce } from './domain/listings/coalesce.ts';
import { ListingCache } from './domain/listings/listing-cache.ts';
import type { VersionStamp } from './domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { openDatabase } from './storage/database.ts';
import { accountRepository } from './storage/repositories/account.repository.ts';
import { upsertCategories } from './storage/repositories/category.repository.ts';
import { readContentVersion } from './storage/repositories/content-version.repository.ts';
import { upsertPlatformReleases } from './storage/repositories/platform-release.repository.ts';
import { rateLimitRepository } from './storage/repositories/rate-limit.repository.ts';

/** Everything the HTTP routes and the CLI commands share: built once per process. */
export interface Container {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly readVersion: () => Promise<VersionStamp>;
  readonly listingCache: ListingCache;
  readonly catalog: CatalogStore;
  /** Everything the accounts use cases need: store, keys, limiter, clock. */
  readonly accounts: SessionDeps & { readonly store: AccountStore; readonly keys: SecretKeys };
  readonly limiter: RateLimiter;
  readonly now: () => Date;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Use this database instead of opening the configured one (tests). */
  readonly database?: DatabaseHandle;
  readonly listingCacheBytes?: number;
  /** The clock of every time-dependent rule (rate limits, sessions); tests move it. */
  readonly now?: () => Date;
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const database = options.database ?? openDatabase(config.database);
  const { db } = database;
  const now = options.now ?? (() => new Date());
  const keys = deriveKeys(loadSecret(config.secretKeyFile, !config.secretKeyFileConfigured));
  const limiter = new RateLimiter(rateLimitRepository(db), now);
  return {
    config,
    database,
    readVersion: coalesce(() => readContentVersion(db)),
    listingCache: new ListingCache({ maxBytes: options.listingCacheBytes ?? 256 * 1024 * 1024 }),
    catalog: {
      upsertCategories: (categories) => upsertCategories(db, categories),
      upsertPlatformReleases: (releases) => upsertPlatformReleases(db, releases),
    },
    accounts: { store: accountRepository(db), keys, limiter, now },
    limiter,
    now,
    close: () => database.close(),
  };
}
