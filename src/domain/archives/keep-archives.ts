import { createHash } from 'node:crypto';
import { isAppError } from '../../errors.ts';
import type { Downloader } from '../archive-download.ts';
import type { KeptArchives } from './kept-archives.ts';

/**
 * `appstore archives keep`: the releases published before the store kept archives (or while
 * APPSTORE_KEEP_ARCHIVES was off) get theirs kept. Each archive is downloaded from the developer's
 * URL again and taken only when its SHA-256 is the one recorded at publish, whose bytes were
 * checked then (info.xml, signature): what the developer's host serves now may be other bytes.
 * Each release is saved on its own, so an interrupted run resumes where it stopped.
 */

/** A release whose archive the store does not keep: its URL, and the digest recorded at publish. */
export interface UnkeptRelease {
  readonly id: number;
  readonly appId: string;
  readonly version: string;
  readonly nightly: boolean;
  readonly download: string;
  readonly sha256: string;
  readonly size: number;
}

/** A kept release's listed URL, to follow APPSTORE_PUBLIC_URL. */
export interface KeptRelease {
  readonly id: number;
  readonly appId: string;
  readonly version: string;
  readonly nightly: boolean;
  readonly download: string;
}

export interface KeepStore {
  /** Releases of apps published here (not taken from an upstream) whose archives are not kept; of one app when given. */
  unkept(appId: string | null): Promise<UnkeptRelease[]>;
  /**
   * Lists `url` for the release and keeps its developer's URL beside it; false when the release
   * changed meanwhile (deleted, or published again with other bytes): nothing is saved then.
   */
  markKept(release: UnkeptRelease, url: string, now: Date): Promise<boolean>;
  /** The kept releases whose listed URL does not begin with `base` (none, unless the public URL changed). */
  keptElsewhere(base: string): Promise<KeptRelease[]>;
  /** New URLs for kept releases (their listings are written again). */
  moveKept(moves: ReadonlyArray<{ readonly id: number; readonly download: string }>, now: Date): Promise<void>;
}

export interface KeepDeps {
  readonly archives: KeptArchives;
  readonly store: KeepStore;
  readonly download: Downloader;
  readonly now: () => Date;
}

export type KeepEvent =
  | { readonly kind: 'start'; readonly total: number }
  | { readonly kind: 'kept'; readonly release: UnkeptRelease; readonly downloaded: boolean; readonly index: number }
  | { readonly kind: 'failed'; readonly release: UnkeptRelease; readonly reason: string; readonly index: number };

export interface KeepReport {
  readonly kept: number;
  readonly failed: number;
}

const label = (r: { appId: string; version: string; nightly: boolean }): string =>
  `${r.appId} ${r.version}${r.nightly ? ' (nightly)' : ''}`;

export async function keepPublishedArchives(
  deps: KeepDeps,
  options: { readonly appId: string | null },
  progress: (event: KeepEvent) => void,
): Promise<KeepReport> {
  const releases = await deps.store.unkept(options.appId);
  progress({ kind: 'start', total: releases.length });
  let kept = 0;
  let failed = 0;
  for (const [i, release] of releases.entries()) {
    const index = i + 1;
    const fail = (reason: string): void => {
      failed += 1;
      progress({ kind: 'failed', release, reason, index });
    };
    try {
      // Stored by an earlier run that stopped before saving, or shared with another release.
      const stored = await deps.archives.storage.has(release.sha256);
      if (!stored) {
        const { bytes } = await deps.download(release.download);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        if (sha256 !== release.sha256) {
          fail(
            `${release.download} now serves other bytes than were published (SHA-256 ${sha256.slice(0, 12)}…, published ${release.sha256.slice(0, 12)}…): publish the release again to have the store keep it`,
          );
          continue;
        }
        await deps.archives.storage.put(sha256, bytes);
      }
      const url = deps.archives.url(release.appId, release.version, release.nightly);
      if (!(await deps.store.markKept(release, url, deps.now()))) {
        fail(`${label(release)} changed while its archive was kept (deleted, or published again): left as it is now`);
        continue;
      }
      kept += 1;
      progress({ kind: 'kept', release, downloaded: !stored, index });
    } catch (error) {
      if (!isAppError(error)) throw error;
      fail(error.detail);
    }
  }
  return { kept, failed };
}

/**
 * The URLs kept releases list follow the store's public URL: after APPSTORE_PUBLIC_URL changed,
 * each is written again (at `serve`'s start). Returns how many moved.
 */
export async function followPublicUrl(deps: Pick<KeepDeps, 'archives' | 'store' | 'now'>): Promise<number> {
  const moves = (await deps.store.keptElsewhere(deps.archives.base))
    .map((r) => ({ id: r.id, from: r.download, download: deps.archives.url(r.appId, r.version, r.nightly) }))
    .filter((m) => m.from !== m.download);
  if (moves.length > 0) await deps.store.moveKept(moves, deps.now());
  return moves.length;
}

export { label as releaseLabel };
