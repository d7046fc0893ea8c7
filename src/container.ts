import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SelfServiceDeps } from './domain/accounts/account-links.ts';
import type { ExternalLoginDeps } from './domain/accounts/external-login.ts';
import { externalProviders } from './external-login/external-providers.ts';
import { externalIdentityRepository } from './storage/repositories/external-identity.repository.ts';
import type { Mailer } from './domain/mail.ts';
import { fileMailer } from './mail/file-mailer.ts';
import { smtpMailer } from './mail/smtp-mailer.ts';
import { deliverAccountMail } from './domain/accounts/account-mail-jobs.ts';
import { MailQueue } from './domain/mail-queue.ts';
import { mailQueueRepository } from './storage/repositories/mail-queue.repository.ts';
import { readMirrorSnapshot } from './storage/repositories/mirror.repository.ts';
import type { Config } from './config/config.ts';
import type { SecretKeys } from './domain/accounts/secret-key.ts';
import { deriveKeys, loadSecret } from './domain/accounts/secret-key.ts';
import type { SessionDeps } from './domain/accounts/sessions.ts';
import type { DeleteAppDeps } from './domain/apps/delete-app.ts';
import type { ManageAppDeps } from './domain/apps/manage-apps.ts';
import type { RegisterDeps } from './domain/apps/register-app.ts';
import type { CatalogDeps } from './domain/catalog/import-catalog.ts';
import { authorityFiles } from './domain/certificates/certificate-authority.ts';
import type { AuthorityFiles } from './domain/certificates/certificate-authority.ts';
import type { RevocationStore } from './domain/certificates/revoke-certificate.ts';
import type { Trust } from './domain/certificates/trust.ts';
import { TrustSource } from './domain/certificates/trust-source.ts';
import type { TrustReports } from './domain/certificates/trust-source.ts';
import { checkSecretKey, trustedOwnCertificates } from './domain/identity/store-identity.ts';
import { SecretKeyWatch } from './domain/identity/secret-key-watch.ts';
import type { IdentityStore } from './domain/identity/store-identity.ts';
import type { AuditLog } from './domain/audit/audit.ts';
import type { DiscoverDeps } from './domain/discover/manage-discover.ts';
import type { KeyRotationStore } from './domain/identity/rotate-secret-key.ts';
import { AppListingEngine } from './domain/listings/app-listing-engine.ts';
import { PasswordHasher } from './domain/accounts/password-hash.ts';
import { ListingCache } from './domain/listings/listing-cache.ts';
import { Listings } from './domain/listings/listings.ts';
import type { VersionStamp } from './domain/listings/version-stamp.ts';
import type { ListingSources } from './domain/listings/listings.ts';
import { LONGEST_WINDOW_MS, RateLimiter, signInRules } from './domain/rate-limit.ts';
import type { HousekeepingDeps } from './domain/housekeeping.ts';
import { housekeepingRepository } from './storage/repositories/housekeeping.repository.ts';
import type { BrowseSources, CatalogBrowseDeps } from './domain/browse/browse-catalog.ts';
import { currentCatalog } from './domain/browse/browse-catalog.ts';
import type { RatingDeps } from './domain/ratings/rate-app.ts';
import type { DeleteReleaseDeps } from './domain/releases/delete-release.ts';
import type { PublishDeps } from './domain/releases/publish-release.ts';
import { createDownloader } from './downloads/archive-downloader.ts';
import { createMirrorService } from './mirror.ts';
import type { MirrorService } from './mirror.ts';
import type { Downloader } from './domain/releases/publish-release.ts';
import { createMetrics, unscrapedMetrics } from './metrics.ts';
import type { StoreMetrics } from './metrics.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { isDatabaseReachable, openDatabase } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { PUBLISH_SLOT_LIMITS, PublishSlots } from './domain/releases/publish-slots.ts';
import type { UnlockEnded } from './domain/apps/manage-apps.ts';
import { revokeIssuedDuringUnlock } from './domain/identity/unlock-certificates.ts';
import type { MigrationReport } from './storage/migrate.ts';
import { inReadSnapshot, readSnapshot } from './storage/read-snapshot.ts';
import { accountRepository } from './storage/repositories/account.repository.ts';
import { appRepository } from './storage/repositories/app.repository.ts';
import { auditRepository } from './storage/repositories/audit.repository.ts';
import { discoverRepository, loadDiscoverEntries } from './storage/repositories/discover.repository.ts';
import { identityRepository } from './storage/repositories/identity.repository.ts';
import { listCategories, listCategoryIds, upsertCategories } from './storage/repositories/category.repository.ts';
import { ContentVersionFeed } from './storage/content-version-feed.ts';
import {
  findIcon,
  loadAppDetails,
  loadCatalogSources,
  loadIconRefs,
  loadListedRatings,
} from './storage/repositories/listing.repository.ts';
import { appListingSource } from './storage/app-listing-source.ts';
import { partFormat } from './domain/listings/app-part.ts';
import { AppSchema, ReleaseSchema } from './domain/listings/listing-schemas.ts';
import { listPlatformReleases, upsertPlatformReleases } from './storage/repositories/platform-release.repository.ts';
import { rateLimitRepository } from './storage/repositories/rate-limit.repository.ts';
import { ratingRepository } from './storage/repositories/rating.repository.ts';
import { releaseRepository } from './storage/repositories/release.repository.ts';
import { revocationRepository } from './storage/repositories/revocation.repository.ts';
import { publishJobRepository } from './storage/repositories/publish-job.repository.ts';
import { certificateRequestRepository } from './storage/repositories/certificate-request.repository.ts';
import { storeSettingsRepository } from './storage/repositories/store-settings.repository.ts';
import { PublishJobs } from './domain/releases/publish-jobs.ts';
import type { CertificateRequestDeps } from './domain/identity/request-certificate.ts';
import type { RevokeBySerialDeps } from './domain/identity/revoke-by-serial.ts';
import type { AppOverviewDeps } from './domain/apps/app-overview.ts';

/**
 * Everything the HTTP routes and the CLI commands share, built once per process: one bag of
 * collaborators per group of use cases, each named after what it serves.
 */
export interface Container {
  readonly config: Config;
  readonly database: DatabaseHandle;
  /** The clock of every time-dependent rule and every stored timestamp; tests move it. */
  readonly now: () => Date;
  /** apps.json, platform/{v}/apps.json, ratings.json, categories.json, platforms.json. */
  readonly listings: Listings;
  /** discover.json's entries (`appstore discover import|export`). */
  readonly discover: DiscoverDeps;
  /** Categories and platform releases (`appstore category|platform import`). */
  readonly catalog: CatalogDeps;
  /** Users, passwords, tokens, sessions. */
  readonly accounts: SessionDeps & { readonly keys: SecretKeys };
  /** `POST /api/v1/apps`. */
  readonly registration: RegisterDeps;
  /** Co-maintainers, flags, transfer (`appstore app …`) and `DELETE /api/v1/apps/{id}`. */
  readonly appManagement: ManageAppDeps & DeleteAppDeps;
  /** `POST /api/v1/apps/releases` and deleting releases. */
  readonly publishing: PublishDeps & DeleteReleaseDeps;
  readonly ratings: RatingDeps;
  /** Publishes started from the developer pages, followed by a page that refreshes; `reports.failed` goes to the log once the server runs. */
  readonly publishJobs: PublishJobs;
  readonly publishJobReports: { failed: (error: unknown, jobId: string) => void };
  /** Certificates asked for on the developer pages (issued by the store's own authority, or after approval). */
  readonly certificateRequests: CertificateRequestDeps;
  /** What the developer and administrator pages read of apps and their audit trails. */
  readonly appOverview: AppOverviewDeps;
  /** Revoking a certificate the store knows by its serial (the admin pages). */
  readonly serialRevocation: RevokeBySerialDeps;
  /** The website's accounts: sign-up, mailed links, the account page. */
  readonly selfService: SelfServiceDeps;
  /** Sign-in through OpenID Providers and GitHub, and the identities connected to accounts. */
  readonly externalLogin: ExternalLoginDeps;
  /** Where mail goes without SMTP (null: SMTP is configured), and who hears of each such mail (the log, once the server runs). */
  readonly mailFiles: { readonly directory: string | null; notify: (message: string) => void };
  /** The website's catalogue pages. */
  readonly browse: CatalogBrowseDeps;
  /** The secret key's fingerprint and the store's own authority (used when APPSTORE_CA_CERT is not set), shared by every node. */
  readonly identity: IdentityStore & KeyRotationStore;
  /** Where versions before 0.2 kept the store's own authority: imported into the database on first start. */
  readonly legacyAuthority: AuthorityFiles;
  /** The authorities and CRLs as they are now: re-read when they change (docs/operations.md). */
  readonly trust: () => Promise<Trust>;
  readonly trustSource: TrustSource;
  /** Refuses (configuration_error) when the database was set up with another secret key. */
  readonly checkSecretKey: () => Promise<void>;
  /** Asked before every request that uses the secret key: refuses them once the key was rotated away. */
  readonly secretKeyWatch: SecretKeyWatch;
  readonly revocations: RevocationStore;
  /** Pruning of expired sessions, links and rate-limit hits, one node at a time (`startHousekeeping`). */
  readonly housekeeping: HousekeepingDeps;
  /** Counters and histograms for `GET /metrics`. */
  readonly metrics: StoreMetrics;
  /** Who changed what (`appstore audit`). */
  readonly audit: AuditLog;
  /** True when the database answers. */
  readonly isDatabaseReachable: () => Promise<boolean>;
  /** What the listings tell the operator (the server logs it): the change feed's state, saved parts that could not be read or saved. */
  readonly listingReports: {
    report: (event: 'listening' | 'lost', error?: Error) => void;
    partsUnavailable: (error: unknown) => void;
    restored: (from: VersionStamp, to: VersionStamp) => void;
  };
  /** Applies pending migrations (safe to run from several processes at once). */
  readonly migrate: () => Promise<MigrationReport>;
  /** The content version as this process knows it (the server reads it before GETs on PostgreSQL). */
  readonly versions: ContentVersionFeed;
  /** The account mails queued by requests and commands, sent after their answer; its reports go to the log once the server runs. */
  readonly mailQueue: MailQueue;
  /** Mirror mode: the sync (null without an upstream) and the archives this store serves. */
  readonly mirror: MirrorService;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Use this database instead of opening the configured one (tests). */
  readonly database?: DatabaseHandle;
  readonly listingCacheBytes?: number;
  /** The clock of every time-dependent rule (rate limits, sessions, ratings window); tests move it. */
  readonly now?: () => Date;
  /** Extra authorities (PEM) release downloads and identity providers are trusted with: the tests' local HTTPS servers. */
  readonly downloadCa?: readonly string[];
  /** 'own': deliver only the mails this process queues (a command); 'all' (default): every due one (a server). */
  readonly mailDelivery?: 'own' | 'all';
  /** Seconds an identity provider has to answer one request (default 15; tests shorten it). */
  readonly providerTimeoutSeconds?: number;
}

/** The site's address for links in mails: the configured one, else what the server listens on. */
export function publicUrlOf(config: Config): string {
  if (config.publicUrl !== null) return config.publicUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/** SQLite (and PostgreSQL without its listening connection): writes by other processes are seen within this. */
const VERSION_POLL_MS = 500;
/** What shapes a saved listing part: the listing's schemas and the serialiser (docs/listing-engine.md). */
const LISTING_PART_FORMAT = partFormat(AppSchema, ReleaseSchema);
const LISTEN_RETRY_MS = 5000;
/** Apps read per query batch by the listing engine: each batch is a few milliseconds on SQLite. */
const LISTING_BATCH_APPS = 16;
/** Expired sessions, links and old rate-limit hits are pruned this often (by one node of all). */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const database = options.database ?? openDatabase(config.database, { poolSize: config.databasePoolSize });
  const { db } = database;
  const now = options.now ?? (() => new Date());
  const keys = deriveKeys(loadSecret(config.secretKeyFile, !config.secretKeyFileConfigured));
  const limiter = new RateLimiter(rateLimitRepository(db), now);
  const accounts = accountRepository(db);
  const registry = appRepository(db);
  const revocations = revocationRepository(db);
  const identity = identityRepository(db);
  const trustReports: TrustReports = { warn: () => undefined, refused: () => undefined, changed: () => undefined };
  const trustSource = new TrustSource(
    async () => ({
      authorityPem:
        config.caCertFile === null
          ? await trustedOwnCertificates(identity)
          : await fs.promises.readFile(config.caCertFile, 'utf8'),
      crlPem: config.crlFile === null ? null : await fs.promises.readFile(config.crlFile, 'utf8'),
    }),
    now,
    trustReports,
  );
  const loadTrust = (): Promise<Trust> => trustSource.current();
  const catalog: CatalogDeps = {
    store: {
      upsertCategories: (categories, at, audit) => upsertCategories(db, categories, at, audit),
      upsertPlatformReleases: (releases, at, audit) => upsertPlatformReleases(db, releases, at, audit),
      categoryIds: () => listCategoryIds(db),
      categories: () => listCategories(db),
      platformReleases: () => listPlatformReleases(db, { supportedOnly: false }),
    },
    now,
  };
  const versions = new ContentVersionFeed(database, {
    pollMs: VERSION_POLL_MS,
    reconnectMs: LISTEN_RETRY_MS,
    report: (event, error) => listingReports.report(event, error),
    restored: (from, to) => listingReports.restored(from, to),
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
    details: (appId, recentSince) => inReadSnapshot(database, (trx) => loadAppDetails(trx, appId, recentSince)),
  };
  const cacheBytes = options.listingCacheBytes ?? config.listingCacheMiB * 1024 * 1024;
  // The sizes are read when scraped, by which time the engine and the cache exist.
  const scraped = config.metrics.port !== null || config.metrics.token !== null;
  const metrics = scraped
    ? createMetrics({
        cacheBytes: () => engine.size + smallListings.size,
        poolUse: database.poolUse,
        commitProbes: () => versions.probes,
        trustRefusals: () => trustSource.refusals,
        ...(config.mirror === null ? {} : { mirror: () => readMirrorSnapshot(db) }),
      })
    : unscrapedMetrics();
  const engine = new AppListingEngine(appListingSource(database), {
    batchSize: LISTING_BATCH_APPS,
    maxBytes: cacheBytes,
    gzipLevel: 6,
    partFormat: LISTING_PART_FORMAT,
    brotliQuality: 5,
    brotliMinSaving: config.listingBrotliMinSaving,
    onPartsError: (error) => listingReports.partsUnavailable(error),
    onRender: (what, ms) => metrics.listingRender(`apps-${what}`, ms / 1000),
  });
  // The small listings (categories, platforms, ratings) are rendered whole, within the same bound.
  const smallListings = new ListingCache({
    maxBytes: Math.max(1024 * 1024, cacheBytes / 8),
    onRender: (variant, ms) => metrics.listingRender(variant, ms / 1000),
  });
  const listings = new Listings(
    listingSources,
    versions,
    engine,
    smallListings,
    now,
    options.now === undefined ? Date.now : undefined,
  );
  const uploadLimits = { limiter, uploadsPerDay: config.limits.uploadsPerDay };
  const smtp = config.mail.smtpUrl === null ? null : smtpMailer({ url: config.mail.smtpUrl, from: config.mail.from });
  const mailDirectory = path.join(config.dataDir, 'mail');
  const mailFiles = {
    directory: smtp === null ? mailDirectory : null,
    notify: (message: string): void => void process.stderr.write(`${message}\n`),
  };
  const mailer: Mailer =
    smtp ?? fileMailer(mailDirectory, config.mail.from, (message) => mailFiles.notify(message), now);
  const listingReports: Container['listingReports'] = {
    report: () => undefined,
    partsUnavailable: () => undefined,
    restored: () => undefined,
  };
  const passwords = new PasswordHasher(config.passwordCost);
  const sessionDeps = { store: accounts, keys, limiter, signIn: signInRules(config.signInLimits), now, passwords };
  const publicUrl = publicUrlOf(config);
  const mailQueue = new MailQueue(
    mailQueueRepository(db),
    (job) => deliverAccountMail(job, { store: accounts, keys, now, limiter, publicUrl, transport: mailer }),
    now,
    {
      problem: (message, error) =>
        void process.stderr.write(`${message}${error === undefined ? '' : `: ${String(error)}`}\n`),
    },
    options.mailDelivery === 'own',
  );
  const publishing: PublishDeps & DeleteReleaseDeps = {
    download: measuredDownloads(
      createDownloader({
        timeoutMs: config.limits.downloadTimeoutMs,
        maxBytes: config.limits.maxArchiveBytes,
        maxRedirects: config.limits.maxRedirects,
        allowPrivate: config.downloadAllowPrivate,
        ...(options.downloadCa === undefined ? {} : { extraCa: options.downloadCa }),
      }),
      metrics,
    ),
    catalog: catalog.store,
    slots: new PublishSlots({
      ...PUBLISH_SLOT_LIMITS,
      perUser: config.limits.publishesPerUser,
      perNode: config.limits.publishesAtOnce,
      bufferBytes: config.limits.maxArchiveBytes,
    }),
    trust: loadTrust,
    revocations,
    registry,
    releases: releaseRepository(db),
    ...uploadLimits,
    now,
  };
  const publishJobReports = {
    failed: (error: unknown, jobId: string): void =>
      void process.stderr.write(`publish ${jobId} failed: ${String(error)}\n`),
  };
  const publishJobs = new PublishJobs({
    publishing,
    jobs: publishJobRepository(db),
    // The download's own limit, and a minute for reading and checking the archive.
    maxRunMs: config.limits.downloadTimeoutMs + 60_000,
    failed: (error, jobId) => publishJobReports.failed(error, jobId),
  });
  const certificateRequests = certificateRequestRepository(db);
  const unlockEnded: UnlockEnded = async (appId, since, owner, acting) => {
    await revokeIssuedDuringUnlock(appId, since, owner, acting, {
      requests: certificateRequests,
      revocations,
      mail: mailQueue,
      now,
    });
  };
  const audit = auditRepository(db);
  const selfService: SelfServiceDeps = { ...sessionDeps, mail: mailQueue, publicUrl, signUpOpen: config.signUpOpen };
  return {
    config,
    database,
    now,
    listings,
    versions,
    catalog,
    discover: { store: discoverRepository(db), now },
    accounts: sessionDeps,
    selfService,
    externalLogin: {
      ...selfService,
      identities: externalIdentityRepository(db),
      providers: externalProviders(config.externalLogin, options.downloadCa, options.providerTimeoutSeconds),
    },
    mailQueue,
    mailFiles,
    registration: { trust: loadTrust, revocations, registry, ...uploadLimits, now, unlockEnded },
    appManagement: { registry, accounts, now, unlockEnded },
    publishing,
    ratings: { registry, ratings: ratingRepository(db), now },
    publishJobs,
    publishJobReports,
    certificateRequests: {
      requests: certificateRequests,
      settings: storeSettingsRepository(db),
      registry,
      identity,
      keys,
      ownAuthority: config.caCertFile === null,
      mail: mailQueue,
      limiter,
      requestsPerDay: config.limits.uploadsPerDay,
      now,
    },
    appOverview: { registry, audit },
    serialRevocation: { requests: certificateRequests, registry, trust: loadTrust, revocations, now },
    browse: { icon: (hash: string) => findIcon(db, hash), catalog: currentCatalog(browseSources, versions, now) },
    identity,
    legacyAuthority: authorityFiles(config.dataDir),
    trust: loadTrust,
    trustSource,
    checkSecretKey: () => checkSecretKey(identity, keys, config.secretKeyFile, now()),
    secretKeyWatch: new SecretKeyWatch(() => identity.readFingerprint(), keys.fingerprint),
    revocations,
    audit,
    housekeeping: {
      store: housekeepingRepository(db),
      now,
      holder: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      intervalMs: HOUSEKEEPING_INTERVAL_MS,
      rateLimitRetentionMs: LONGEST_WINDOW_MS,
      partFormat: LISTING_PART_FORMAT,
    },
    metrics,
    mirror: createMirrorService(config, db, publicUrl, now, options.downloadCa),
    isDatabaseReachable: () => isDatabaseReachable(db),
    migrate: () => migrateToLatest(database, now()),
    listingReports,
    close: async () => {
      await publishJobs.settled();
      await mailQueue.stop();
      smtp?.close();
      await versions.close();
      await database.close();
    },
  };
}

/** The downloader, timed and counted for the metrics. */
function measuredDownloads(download: Downloader, metrics: StoreMetrics): Downloader {
  return async (address, into) => {
    const started = performance.now();
    try {
      const result = await download(address, into);
      metrics.download('ok', result.bytes.length, (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      metrics.download('refused', 0, (performance.now() - started) / 1000);
      throw error;
    }
  };
}
