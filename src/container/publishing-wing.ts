import type { Config } from '../config/config.ts';
import type { KeptArchives } from '../domain/archives/kept-archives.ts';
import type { DeleteAppDeps } from '../domain/apps/delete-app.ts';
import type { ManageAppDeps, UnlockEnded } from '../domain/apps/manage-apps.ts';
import type { RegisterDeps } from '../domain/apps/register-app.ts';
import type { CatalogStore } from '../domain/catalog/import-catalog.ts';
import type { RevocationStore } from '../domain/certificates/revoke-certificate.ts';
import type { Trust } from '../domain/certificates/trust.ts';
import { revokeIssuedDuringUnlock } from '../domain/identity/unlock-certificates.ts';
import type { MailQueue } from '../domain/mail-queue.ts';
import type { RateLimiter } from '../domain/rate-limit.ts';
import type { RatingDeps } from '../domain/ratings/rate-app.ts';
import type { DeleteReleaseDeps } from '../domain/releases/delete-release.ts';
import type { Downloader } from '../domain/archive-download.ts';
import type { PublishDeps } from '../domain/releases/publish-release.ts';
import { PublishJobs } from '../domain/releases/publish-jobs.ts';
import { PUBLISH_SLOT_LIMITS, PublishSlots } from '../domain/releases/publish-slots.ts';
import { createDownloader } from '../downloads/archive-downloader.ts';
import type { TrustContext } from '../downloads/trust-context.ts';
import type { StoreMetrics } from '../metrics.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import type { AppRegistry } from '../domain/apps/app-registry.ts';
import type { AccountStore } from '../domain/accounts/user.ts';
import { certificateRequestRepository } from '../storage/repositories/certificate-request.repository.ts';
import { publishJobRepository } from '../storage/repositories/publish-job.repository.ts';
import { ratingRepository } from '../storage/repositories/rating.repository.ts';
import { moderationRepository } from '../storage/repositories/moderation.repository.ts';
import type { ModerationDeps } from '../domain/ratings/moderation.ts';
import { releaseRepository } from '../storage/repositories/release.repository.ts';
import { errorText } from '../store-log.ts';
import type { StoreLog } from '../store-log.ts';

/** The publishing wing: registering apps, managing them, publishing and deleting releases (by the API and by page jobs), ratings. */
export interface PublishingWing {
  readonly registration: RegisterDeps;
  readonly appManagement: ManageAppDeps & DeleteAppDeps;
  readonly publishing: PublishDeps & DeleteReleaseDeps;
  readonly ratings: RatingDeps;
  readonly moderation: ModerationDeps;
  readonly publishJobs: PublishJobs;
  readonly certificateRequests: ReturnType<typeof certificateRequestRepository>;
}

export interface PublishingWingOptions {
  readonly archives: KeptArchives;
  readonly registry: AppRegistry;
  readonly accounts: AccountStore;
  readonly revocations: RevocationStore;
  readonly catalog: CatalogStore;
  readonly limiter: RateLimiter;
  readonly trust: () => Promise<Trust>;
  readonly mailQueue: MailQueue;
  readonly metrics: StoreMetrics;
  /** The TLS context release downloads use (the tests' authority besides Node's roots). */
  readonly downloadTrust?: TrustContext;
  readonly log: StoreLog;
}

export function publishingWing(
  config: Config,
  database: DatabaseHandle,
  now: () => Date,
  options: PublishingWingOptions,
): PublishingWing {
  const { db } = database;
  const { registry, revocations, limiter, trust, metrics } = options;
  const uploadLimits = { limiter, uploadsPerDay: config.limits.uploadsPerDay };
  const publishing: PublishDeps & DeleteReleaseDeps = {
    download: measuredDownloads(
      createDownloader({
        timeoutMs: config.limits.downloadTimeoutMs,
        maxBytes: config.limits.maxArchiveBytes,
        maxRedirects: config.limits.maxRedirects,
        allowPrivate: config.downloadAllowPrivate,
        ...(options.downloadTrust === undefined ? {} : { trust: options.downloadTrust }),
      }),
      metrics,
    ),
    catalog: options.catalog,
    slots: new PublishSlots({
      ...PUBLISH_SLOT_LIMITS,
      perUser: config.limits.publishesPerUser,
      perNode: config.limits.publishesAtOnce,
      bufferBytes: config.limits.maxArchiveBytes,
    }),
    trust,
    revocations,
    registry,
    releases: releaseRepository(db),
    archives: options.archives,
    notify: options.mailQueue,
    ...uploadLimits,
    now,
  };
  const publishJobs = new PublishJobs({
    publishing,
    jobs: publishJobRepository(db),
    // The download's own limit, and a minute for reading and checking the archive.
    maxRunMs: config.limits.downloadTimeoutMs + 60_000,
    failed: (error, jobId) =>
      options.log.error('a publish started from the developer pages failed', { job: jobId, error: errorText(error) }),
  });
  const certificateRequests = certificateRequestRepository(db);
  const moderation = moderationRepository(db);
  const unlockEnded: UnlockEnded = async (appId, since, owner, acting) => {
    await revokeIssuedDuringUnlock(appId, since, owner, acting, {
      requests: certificateRequests,
      revocations,
      mail: options.mailQueue,
      now,
    });
  };
  return {
    registration: { trust, revocations, registry, archives: options.archives, ...uploadLimits, now, unlockEnded },
    appManagement: { registry, accounts: options.accounts, archives: options.archives, now, unlockEnded },
    publishing,
    ratings: { registry, ratings: ratingRepository(db), moderation, limiter, now },
    moderation: { registry, moderation, limiter, now },
    publishJobs,
    certificateRequests,
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
