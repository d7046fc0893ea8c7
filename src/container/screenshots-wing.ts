import type { Config } from '../config/config.ts';
import type { ArchiveStorage } from '../domain/archives/archive-storage.ts';
import { copyMissingScreenshots, SCREENSHOT_LIMITS } from '../domain/screenshots/screenshot-copies.ts';
import type { ScreenshotCopy, ScreenshotDeps } from '../domain/screenshots/screenshot-copies.ts';
import { createDownloader } from '../downloads/archive-downloader.ts';
import type { TrustContext } from '../downloads/trust-context.ts';
import { sharpImages } from '../images/sharp-images.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import { screenshotCopyRepository } from '../storage/repositories/screenshot-copy.repository.ts';

/** How long a node trusts its list of copies before reading it again (copies made on another node). */
const COPIES_TTL_MS = 30_000;
/** Screenshots copied per round of a sweep. */
const ROUND = 20;

/**
 * Screenshots through the store (issue 54), as the process runs them: a sweep copies the listed
 * apps' screenshots that have no copy yet, one sweep at a time per process, started after each
 * content change (a publish, a mirror sync, on any node) and by the housekeeping timer; the
 * pages read the copies from a list kept for a few seconds.
 */
export class ScreenshotCopier {
  private sweeping: Promise<number> | null = null;
  private again = false;
  private known: { readonly at: number; readonly copies: Promise<ReadonlyMap<string, ScreenshotCopy>> } | null = null;

  constructor(
    readonly deps: ScreenshotDeps,
    private readonly report: (message: string, details: Record<string, unknown>) => void,
  ) {}

  /** Copies what is missing; resolves with how many were copied (a sweep asked for meanwhile runs after it). */
  sweep(): Promise<number> {
    if (this.sweeping !== null) {
      this.again = true;
      return this.sweeping;
    }
    const run = async (): Promise<number> => {
      let total = 0;
      for (;;) {
        this.again = false;
        const { copied, refused } = await copyMissingScreenshots(this.deps, ROUND);
        total += copied;
        for (const { url, problem } of refused) this.report('screenshot not copied', { url, problem });
        if (copied + refused.length > 0) this.known = null;
        if (copied + refused.length < ROUND && !this.again) return total;
      }
    };
    this.sweeping = run().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  /** Starts a sweep and does not wait for it; a failure is reported. */
  kick(): void {
    this.sweep().catch((error: unknown) =>
      this.report('screenshots could not be copied; tried again later', {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  private lastKick = 0;

  /**
   * A page met a screenshot with no copy: starts a sweep, at most one every ten seconds (a copy
   * that failed is tried again only a day later, so pages of such apps do not start one each).
   */
  kickSoon(): void {
    const now = Date.now();
    if (now - this.lastKick < 10_000) return;
    this.lastKick = now;
    this.kick();
  }

  /** The copies made, by screenshot URL. */
  copies(): Promise<ReadonlyMap<string, ScreenshotCopy>> {
    const now = Date.now();
    if (this.known === null || now - this.known.at > COPIES_TTL_MS) {
      const copies = this.deps.store.copies();
      this.known = { at: now, copies };
      copies.catch(() => {
        this.known = null;
      });
    }
    return this.known.copies;
  }
}

export function screenshotCopier(
  config: Config,
  database: DatabaseHandle,
  storage: ArchiveStorage,
  now: () => Date,
  downloadTrust: TrustContext | undefined,
  report: (message: string, details: Record<string, unknown>) => void,
): ScreenshotCopier {
  return new ScreenshotCopier(
    {
      download: createDownloader({
        timeoutMs: Math.min(config.limits.downloadTimeoutMs, 30_000),
        maxBytes: SCREENSHOT_LIMITS.maxBytes,
        maxRedirects: config.limits.maxRedirects,
        allowPrivate: config.screenshotsAllowPrivate,
        ...(downloadTrust === undefined ? {} : { trust: downloadTrust }),
      }),
      images: sharpImages,
      storage,
      store: screenshotCopyRepository(database.db),
      now,
    },
    report,
  );
}
