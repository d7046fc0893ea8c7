import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { SelfServiceDeps } from './domain/accounts/account-links.ts';
import type { ExternalLoginDeps } from './domain/accounts/external-login.ts';
import type { MailQueue } from './domain/mail-queue.ts';
import { readMirrorSnapshot } from './storage/repositories/mirror.repository.ts';
import type { Config } from './config/config.ts';
import { publicUrlOf, trustedPublishingAudiences } from './config/config.ts';
import { openArchiveStorage } from './archives/open-archive-storage.ts';
import { screenshotCopier } from './container/screenshots-wing.ts';
import type { ScreenshotCopier } from './container/screenshots-wing.ts';
import type { KeepDeps } from './domain/archives/keep-archives.ts';
import { archivePath } from './domain/archives/kept-archives.ts';
import type { KeptArchives } from './domain/archives/kept-archives.ts';
import { keptArchiveRepository } from './storage/repositories/kept-archive.repository.ts';
import { DownloadCounter } from './domain/archives/download-counter.ts';
import type { AppStatusDeps } from './domain/apps/app-status.ts';
import type { NotificationLookDeps } from './domain/notifications/notification-look.ts';
import { notificationRepository } from './storage/repositories/notification.repository.ts';
import type { FeedStore } from './domain/feeds/release-feed.ts';
import { SubscriptionKeyCheck } from './domain/listings/subscription-keys.ts';
import type { SubscriptionKeyStore } from './domain/listings/subscription-keys.ts';
import { subscriptionKeyRepository } from './storage/repositories/subscription-key.repository.ts';
import { feedRepository } from './storage/repositories/feed.repository.ts';
import { appStatusRepository } from './storage/repositories/app-status.repository.ts';
import type { DownloadStatsDeps } from './domain/apps/app-downloads.ts';
import { trustContext } from './downloads/trust-context.ts';
import { downloadStatsRepository } from './storage/repositories/download-stats.repository.ts';
import { accountsWing } from './container/accounts-wing.ts';
import type { TwoFactorDeps } from './domain/accounts/two-factor.ts';
import type { TrustedPublishingDeps } from './domain/trusted-publishing/trusted-publishing.ts';
import { idTokenVerifier } from './trusted-publishing/id-token-verifier.ts';
import { trustedPublisherRepository } from './storage/repositories/trusted-publisher.repository.ts';
import { listingPartFormat, listingsWing } from './container/listings-wing.ts';
import { errorText, stderrLog } from './store-log.ts';
import type { StoreLog } from './store-log.ts';
import { publishingWing } from './container/publishing-wing.ts';
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
import type { Listings } from './domain/listings/listings.ts';
import { LONGEST_WINDOW_MS, RateLimiter } from './domain/rate-limit.ts';
import type { HousekeepingDeps } from './domain/housekeeping.ts';
import { housekeepingRepository } from './storage/repositories/housekeeping.repository.ts';
import type { CatalogBrowseDeps } from './domain/browse/browse-catalog.ts';
import type { RatingDeps } from './domain/ratings/rate-app.ts';
import type { ModerationDeps } from './domain/ratings/moderation.ts';
import type { DeleteReleaseDeps } from './domain/releases/delete-release.ts';
import type { PublishDeps } from './domain/releases/publish-release.ts';
import { createMirrorService } from './mirror.ts';
import type { MirrorService } from './mirror.ts';
import { createMetrics, unscrapedMetrics } from './metrics.ts';
import type { StoreMetrics } from './metrics.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { isDatabaseReachable, openDatabase } from './storage/database.ts';
import { migrateToLatest, storeExists } from './storage/migrate.ts';
import type { MigrationReport } from './storage/migrate.ts';
import { accountRepository } from './storage/repositories/account.repository.ts';
import { appRepository } from './storage/repositories/app.repository.ts';
import { auditRepository } from './storage/repositories/audit.repository.ts';
import { discoverRepository } from './storage/repositories/discover.repository.ts';
import { identityRepository } from './storage/repositories/identity.repository.ts';
import { listCategories, listCategoryIds, upsertCategories } from './storage/repositories/category.repository.ts';
import type { ContentVersionFeed } from './storage/content-version-feed.ts';
import { listPlatformReleases, upsertPlatformReleases } from './storage/repositories/platform-release.repository.ts';
import { rateLimitRepository } from './storage/repositories/rate-limit.repository.ts';
import { revocationRepository } from './storage/repositories/revocation.repository.ts';
import { storeSettingsRepository } from './storage/repositories/store-settings.repository.ts';
import type { PublishJobs } from './domain/releases/publish-jobs.ts';
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
  readonly accounts: SessionDeps & TwoFactorDeps & { readonly keys: SecretKeys };
  /** `POST /api/v1/apps`. */
  readonly registration: RegisterDeps;
  /** Co-maintainers, flags, transfer (`appstore app …`) and `DELETE /api/v1/apps/{id}`. */
  readonly appManagement: ManageAppDeps & DeleteAppDeps;
  /** `POST /api/v1/apps/releases` and deleting releases. */
  readonly publishing: PublishDeps & DeleteReleaseDeps;
  readonly ratings: RatingDeps;
  /** The store's copies of screenshots and their thumbnails (issue 54). */
  readonly screenshots: ScreenshotCopier;
  /** Reports, replies and administrators' decisions on ratings (issue 54). */
  readonly moderation: ModerationDeps;
  /** Publishes started from the developer pages, followed by a page that refreshes; a failure goes to the log. */
  readonly publishJobs: PublishJobs;
  /** Certificates asked for on the developer pages (issued by the store's own authority, or after approval). */
  readonly certificateRequests: CertificateRequestDeps;
  /** What the developer and administrator pages read of apps and their audit trails. */
  readonly appOverview: AppOverviewDeps;
  /** Revoking a certificate the store knows by its serial (the admin pages). */
  readonly serialRevocation: RevokeBySerialDeps;
  /** The website's accounts: sign-up, mailed links, the account page. */
  readonly selfService: SelfServiceDeps & TwoFactorDeps;
  /** Sign-in through OpenID Providers and GitHub, and the identities connected to accounts. */
  readonly externalLogin: ExternalLoginDeps;
  /** Where mail goes without SMTP (null: SMTP is configured); each such mail is told to `ContainerOptions.mailFileNotice`. */
  readonly mailFiles: { readonly directory: string | null };
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
  /** Applies pending migrations (safe to run from several processes at once). */
  readonly migrate: () => Promise<MigrationReport>;
  /** Whether the database holds a store yet (a command that only reads refuses one that does not). */
  readonly storeExists: () => Promise<boolean>;
  /** The content version as this process knows it (the server reads it before GETs on PostgreSQL). */
  readonly versions: ContentVersionFeed;
  /** The account mails queued by requests and commands, sent after their answer; its reports go to the log once the server runs. */
  readonly mailQueue: MailQueue;
  /** Mirror mode: the sync (null without an upstream) and the archives this store serves. */
  readonly mirror: MirrorService;
  /** The archives this store keeps for its releases (docs/decisions.md), and `appstore archives`. */
  readonly keptArchives: KeepDeps;
  /** The site's address as visitors and Nextcloud servers reach it (APPSTORE_PUBLIC_URL, else host and port). */
  readonly publicUrl: string;
  /** Trusted publishing (issue 53): publishers, issuers, and the exchange of CI jobs' ID tokens. */
  readonly trustedPublishing: TrustedPublishingDeps;
  /** Subscription keys (X-NC-Subscription-Key): the store, and the check the listings ask. */
  readonly subscriptionKeys: { readonly store: SubscriptionKeyStore; readonly check: SubscriptionKeyCheck };
  /** The release feeds' reads (issue 52). */
  readonly feeds: FeedStore;
  /** Deprecation, orphaning and retired releases (issue 52). */
  readonly appStatus: AppStatusDeps;
  /** Notifications found by looking (certificates about to expire, a new Nextcloud major), and the account page's settings. */
  readonly notificationLook: NotificationLookDeps;
  /** Downloads of the archives this store serves: counted in batches, read by the API and the pages. */
  readonly downloads: {
    readonly counter: DownloadCounter;
    readonly stats: DownloadStatsDeps;
  };
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
  /** Where the parts report what an operator should hear of (the server's log; default: warnings and errors on standard error). */
  readonly log?: StoreLog;
  /** Who hears of each mail written to a file without SMTP, with its link (default: the log's warnings; `appstore user invite`: its output). */
  readonly mailFileNotice?: (message: string) => void;
}

/** Expired sessions, links and old rate-limit hits are pruned this often (by one node of all). */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;

export function createContainer(config: Config, options: ContainerOptions = {}): Container {
  const database = options.database ?? openDatabase(config.database, { poolSize: config.databasePoolSize });
  const { db } = database;
  const now = options.now ?? (() => new Date());
  // One TLS context for every client that trusts the tests' authority, made when first needed.
  const downloadTrust =
    options.downloadCa === undefined || options.downloadCa.length === 0 ? undefined : trustContext(options.downloadCa);
  const keys = deriveKeys(loadSecret(config.secretKeyFile, !config.secretKeyFileConfigured));
  const limiter = new RateLimiter(rateLimitRepository(db), now);
  const accountStore = accountRepository(db);
  const registry = appRepository(db);
  const revocations = revocationRepository(db);
  const identity = identityRepository(db);
  const log = options.log ?? stderrLog;
  const trustReports: TrustReports = {
    warn: (message) => log.warn(`trust: ${message}`),
    refused: (error) =>
      log.error(
        'trust: the changed authority or CRL could not be used; the previous one stays in force until it is fixed',
        { error: errorText(error) },
      ),
    changed: () => log.info('trust: the authorities or revocation lists changed; the new ones apply from now on'),
  };
  // Read at every certificate check (a changed file applies at once, on every node), and read
  // synchronously: a few kilobytes from the page cache. Read through the thread pool, each step of
  // the two reads (open, stat, read, close) was a hop to another thread and back, and on a store
  // given one core the hops waited for the scheduler: 25 to 60 ms in about half of the bench's
  // publishes, most of a publish's check (issue 55).
  const trustSource = new TrustSource(
    async () => ({
      authorityPem:
        config.caCertFile === null
          ? await trustedOwnCertificates(identity)
          : fs.readFileSync(config.caCertFile, 'utf8'),
      crlPem: config.crlFile === null ? null : fs.readFileSync(config.crlFile, 'utf8'),
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
  const listingSide = listingsWing(config, database, now, {
    ...(options.listingCacheBytes === undefined ? {} : { listingCacheBytes: options.listingCacheBytes }),
    fixedClock: options.now !== undefined,
    log,
    metrics: () => metrics,
  });
  // The sizes are read when scraped, by which time the listing caches exist.
  const scraped = config.metrics.port !== null || config.metrics.token !== null;
  const metrics = scraped
    ? createMetrics({
        cacheBytes: listingSide.cacheBytes,
        poolUse: database.poolUse,
        commitProbes: () => listingSide.versions.probes,
        trustRefusals: () => trustSource.refusals,
        ...(config.mirror === null ? {} : { mirror: () => readMirrorSnapshot(db) }),
      })
    : unscrapedMetrics();
  const accountSide = accountsWing(config, database, now, {
    store: accountStore,
    keys,
    limiter,
    log,
    ...(options.mailFileNotice === undefined ? {} : { mailFileNotice: options.mailFileNotice }),
    ...(downloadTrust === undefined ? {} : { downloadTrust }),
    ...(options.providerTimeoutSeconds === undefined ? {} : { providerTimeoutSeconds: options.providerTimeoutSeconds }),
    ...(options.mailDelivery === undefined ? {} : { mailDelivery: options.mailDelivery }),
  });
  const publicUrl = publicUrlOf(config);
  const archiveStorage = openArchiveStorage(config.archives, config.dataDir);
  const archiveRecords = keptArchiveRepository(db);
  const archives: KeptArchives = {
    storage: archiveStorage,
    references: archiveRecords,
    keepNew: config.keepArchives,
    base: `${publicUrl}/api/v1/archives/`,
    url: (appId, version, nightly) => `${publicUrl}${archivePath(appId, version, nightly)}`,
    failed: (message, error) => log.warn(`archives: ${message}`, { error: errorText(error) }),
  };
  const downloadStats = downloadStatsRepository(db);
  const subscriptionKeys = subscriptionKeyRepository(db);
  const downloadCounter = new DownloadCounter(downloadStats, now, (error) =>
    log.warn('downloads: counts could not be written; they are kept and written with the next batch', {
      error: errorText(error),
    }),
  );
  const publishingSide = publishingWing(config, database, now, {
    archives,
    registry,
    accounts: accountStore,
    revocations,
    catalog: catalog.store,
    limiter,
    trust: loadTrust,
    mailQueue: accountSide.mailQueue,
    metrics,
    log,
    ...(downloadTrust === undefined ? {} : { downloadTrust }),
  });
  const audit = auditRepository(db);
  const { cacheBytes: _cacheBytes, ...listingMembers } = listingSide;
  const { close: closeAccounts, ...accountMembers } = accountSide;
  const { certificateRequests: certificateRequestStore, ...publishingMembers } = publishingSide;
  return {
    config,
    database,
    now,
    catalog,
    discover: { store: discoverRepository(db), now },
    ...listingMembers,
    ...accountMembers,
    ...publishingMembers,
    certificateRequests: {
      requests: certificateRequestStore,
      settings: storeSettingsRepository(db),
      registry,
      identity,
      keys,
      ownAuthority: config.caCertFile === null,
      mail: accountSide.mailQueue,
      limiter,
      requestsPerDay: config.limits.uploadsPerDay,
      now,
    },
    appOverview: { registry, audit },
    serialRevocation: { requests: certificateRequestStore, registry, trust: loadTrust, revocations, now },
    identity,
    legacyAuthority: authorityFiles(config.dataDir),
    trust: loadTrust,
    trustSource,
    checkSecretKey: () => checkSecretKey(identity, keys, config.secretKeyFile, now()),
    secretKeyWatch: new SecretKeyWatch(() => identity.readFingerprint(), keys.fingerprint, {
      replaced: () =>
        log.error(
          'secret key: `appstore secret-key rotate` replaced the key this node runs with; requests that use it are refused (503) until this node is restarted with the new key file',
        ),
    }),
    revocations,
    audit,
    housekeeping: {
      store: housekeepingRepository(db),
      now,
      holder: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      intervalMs: HOUSEKEEPING_INTERVAL_MS,
      rateLimitRetentionMs: LONGEST_WINDOW_MS,
      partFormat: listingPartFormat(config),
    },
    metrics,
    mirror: createMirrorService(config, db, archiveStorage, publicUrl, now, downloadTrust),
    keptArchives: { archives, store: archiveRecords, download: publishingSide.publishing.download, now },
    downloads: { counter: downloadCounter, stats: { registry, stats: downloadStats, now } },
    appStatus: { registry, statuses: appStatusRepository(db), notify: accountSide.mailQueue, now },
    notificationLook: { store: notificationRepository(db), mail: accountSide.mailQueue, now },
    publicUrl,
    trustedPublishing: {
      publishers: trustedPublisherRepository(db),
      registry,
      accounts: accountStore,
      tokens: accountSide.accounts.tokens,
      verifier: idTokenVerifier(
        {
          timeoutMs: Math.min(config.limits.downloadTimeoutMs, 15_000),
          maxRedirects: config.limits.maxRedirects,
          allowPrivate: config.downloadAllowPrivate,
          ...(downloadTrust === undefined ? {} : { trust: downloadTrust }),
        },
        now,
      ),
      keys,
      limiter,
      audiences: trustedPublishingAudiences(config),
      now,
    },
    feeds: feedRepository(db),
    screenshots: screenshotCopier(config, database, archiveStorage, now, downloadTrust, (message, details) =>
      log.warn(`screenshots: ${message}`, details),
    ),
    subscriptionKeys: { store: subscriptionKeys, check: new SubscriptionKeyCheck(subscriptionKeys, now) },
    isDatabaseReachable: () => isDatabaseReachable(db),
    migrate: () => migrateToLatest(database, now()),
    storeExists: () => storeExists(database),
    close: async () => {
      await publishingSide.publishJobs.settled();
      // Downloads counted but not written yet are written before the database closes (SIGTERM).
      await downloadCounter.close();
      await closeAccounts();
      await listingSide.close();
      await database.close();
    },
  };
}
