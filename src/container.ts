import fs from 'node:fs';
import type { Config } from './config.ts';
import type { SessionDeps } from './domain/accounts/sessions.ts';
import type { SecretKeys } from './domain/accounts/secret-key.ts';
import { deriveKeys, loadSecret } from './domain/accounts/secret-key.ts';
import type { AccountStore } from './domain/accounts/user.ts';
import type { ManageAppDeps } from './domain/apps/manage-apps.ts';
import type { RegisterDeps } from './domain/apps/register-app.ts';
import type { PublishDeps } from './domain/releases/publish-release.ts';
import { createDownloader } from './downloads/archive-downloader.ts';
import { authorityFiles, readAuthorityCertificate } from './domain/certificates/certificate-authority.ts';
import type { AuthorityFiles } from './domain/certificates/certificate-authority.ts';
import type { RevocationStore } from './domain/certificates/revoke-certificate.ts';
import { loadTrust } from './domain/certificates/trust.ts';
import type { Trust } from './domain/certificates/trust.ts';
import { RateLimiter } from './domain/rate-limit.ts';
import type { RatingStore } from './domain/ratings/rate-app.ts';
import type { CatalogStore } from './domain/catalog/import-catalog.ts';
import { coalesce } from './domain/listings/coalesce.ts';
import { ListingCache } from './domain/listings/listing-cache.ts';
import type { VersionStamp } from './domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { openDatabase } from './storage/database.ts';
import { accountRepository } from './storage/repositories/account.repository.ts';
import { appRepository } from './storage/repositories/app.repository.ts';
import { upsertCategories } from './storage/repositories/category.repository.ts';
import { readContentVersion } from './storage/repositories/content-version.repository.ts';
import { upsertPlatformReleases } from './storage/repositories/platform-release.repository.ts';
import { rateLimitRepository } from './storage/repositories/rate-limit.repository.ts';
import { ratingRepository } from './storage/repositories/rating.repository.ts';
import { releaseRepository } from './storage/repositories/release.repository.ts';
import { revocationRepository } from './storage/repositories/revocation.repository.ts';

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
  /** The store's own authority (used when APPSTORE_CA_CERT is not set). */
  readonly authority: AuthorityFiles;
  /** The authorities and CRLs, read once on first use; problems with CRLs go to `trustWarnings`. */
  readonly trust: () => Promise<Trust>;
  readonly trustWarnings: string[];
  readonly revocations: RevocationStore;
  readonly apps: RegisterDeps & ManageAppDeps & PublishDeps;
  readonly ratings: RatingStore;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Use this database instead of opening the configured one (tests). */
  readonly database?: DatabaseHandle;
  readonly listingCacheBytes?: number;
  /** The clock of every time-dependent rule (rate limits, sessions); tests move it. */
  readonly now?: () => Date;
  /** Extra authorities (PEM) release downloads trust: the tests' local HTTPS server. */
  readonly downloadCa?: readonly string[];
}

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const database = options.database ?? openDatabase(config.database);
  const { db } = database;
  const now = options.now ?? (() => new Date());
  const keys = deriveKeys(loadSecret(config.secretKeyFile, !config.secretKeyFileConfigured));
  const limiter = new RateLimiter(rateLimitRepository(db), now);
  const accounts = accountRepository(db);
  const authority = authorityFiles(config.dataDir);
  const trustWarnings: string[] = [];
  let trust: Promise<Trust> | undefined;
  const loadConfiguredTrust = async (): Promise<Trust> => {
    const authorityPem = config.caCertFile === null ? readAuthorityCertificate(authority) : fs.readFileSync(config.caCertFile, 'utf8');
    const crlPem = config.crlFile === null ? null : fs.readFileSync(config.crlFile, 'utf8');
    return loadTrust(authorityPem, crlPem, now(), (warning) => trustWarnings.push(warning));
  };
  const loadTrustOnce = (): Promise<Trust> => {
    trust ??= loadConfiguredTrust().catch((error: unknown) => {
      trust = undefined; // a missing authority may be created later (`appstore ca init`)
      throw error;
    });
    return trust;
  };
  const revocations = revocationRepository(db);
  return {
    config,
    database,
    readVersion: coalesce(() => readContentVersion(db)),
    listingCache: new ListingCache({ maxBytes: options.listingCacheBytes ?? 256 * 1024 * 1024 }),
    catalog: {
      upsertCategories: (categories) => upsertCategories(db, categories),
      upsertPlatformReleases: (releases) => upsertPlatformReleases(db, releases),
    },
    accounts: { store: accounts, keys, limiter, now },
    limiter,
    now,
    authority,
    trust: loadTrustOnce,
    trustWarnings,
    revocations,
    apps: {
      trust: loadTrustOnce,
      revocations,
      registry: appRepository(db),
      releases: releaseRepository(db),
      download: createDownloader({
        timeoutMs: config.limits.downloadTimeoutMs,
        maxBytes: config.limits.maxArchiveBytes,
        maxRedirects: config.limits.maxRedirects,
        allowPrivate: config.downloadAllowPrivate,
        ...(options.downloadCa === undefined ? {} : { extraCa: options.downloadCa }),
      }),
      uploadsPerDay: config.limits.uploadsPerDay,
      limiter,
      now,
      accounts,
    },
    ratings: ratingRepository(db),
    close: () => database.close(),
  };
}
