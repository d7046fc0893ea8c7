import { createHash } from 'node:crypto';
import { isAppError } from '../../errors.ts';
import type { Trust } from '../certificates/trust.ts';
import { inBatches } from '../in-batches.ts';
import type { AppIcon } from '../releases/app-icon.ts';
import { iconOfArchive } from '../releases/read-release.ts';
import type { ListedRelease, MirrorDeps, MirroredRelease, ReleaseStatus, SyncOptions } from './mirror-ports.ts';
import type { Selection } from './mirror-selection.ts';
import { archiveSizes, refusalRecheck, releasesToCheck, sameOffer, stillListed } from './mirror-selection.ts';
import { upstreamArchiveProblem, upstreamCertificateProblem } from './upstream-archive-check.ts';
import type { UpstreamRelease } from './upstream-listing.ts';

/** What checking the policy's releases found, by release key. */
export interface ReleaseChecks {
  /** The record of every release considered, listed or not and why. */
  readonly records: Map<string, MirroredRelease>;
  /** The releases listed, with their archives. */
  readonly listed: Map<string, ListedRelease>;
  /** New offers of listed releases that failed (the release stays listed as before). */
  readonly notTaken: string[];
  /** The icons of the apps whose newest release was downloaded now. */
  readonly icons: Map<string, AppIcon | null>;
  readonly bytes: number;
  readonly taken: number;
  readonly unchanged: number;
}

/** What a sync judges releases by: when, under which trust settings (and their digest), against the records from before. */
export interface Judging {
  readonly at: string;
  readonly trust: Trust;
  readonly trustId: string;
  readonly previous: ReadonlyMap<string, MirroredRelease>;
}

/** What a check judges by, and the source's kept entries. */
export interface CheckContext extends Judging {
  /** Releases the source keeps beyond its documents (an export's), taken as they are, by their key. */
  readonly fromKept: ReadonlyMap<string, string>;
  readonly options: SyncOptions;
}

/**
 * Each release the policy takes, at most `deps.concurrency` at once: kept as it was when the
 * upstream offers what was checked before; else downloaded, checked as a Nextcloud server would,
 * and stored by its SHA-256. A listed release whose new offer fails stays listed as it was checked.
 */
export async function checkReleases(
  selection: Selection,
  deps: MirrorDeps,
  context: CheckContext,
): Promise<ReleaseChecks> {
  const { at, trust, trustId, previous, fromKept, options } = context;
  const sizeOf = archiveSizes(deps.upstream);
  const records = new Map<string, MirroredRelease>();
  const listed = new Map<string, ListedRelease>();
  const notTaken: string[] = [];
  const icons = new Map<string, AppIcon | null>();
  let bytes = 0;
  let taken = 0;
  let unchanged = 0;
  await inBatches(
    releasesToCheck(selection, previous),
    deps.concurrency ?? 4,
    async ({ app, release, key, before, newest }) => {
      const appId = app.app.id;
      const { version, isNightly } = release.release;
      const record = (status: ReleaseStatus, reason: string, sha256 = '', size = 0): void => {
        records.set(key, {
          appId,
          version,
          nightly: isNightly,
          upstreamDownload: release.download,
          signature: release.signature,
          status,
          reason,
          sha256,
          size,
          checkedAt: at,
          checkedWith: trustId,
          keptEntry: fromKept.get(key) ?? null,
        });
      };
      const download = deps.archiveUrl(appId, version, isNightly);
      /** Listed as checked before: its record, its archive, and the signature that goes with it. */
      const keepListed = (checked: MirroredRelease, offer: UpstreamRelease): void => {
        records.set(key, checked);
        listed.set(key, { upstream: offer, sha256: checked.sha256, size: checked.size, download });
        unchanged += 1;
      };
      /** A listed release judged under other trust settings: its certificate is checked again (no download); null when it still passes. */
      const rejudged = (checked: MirroredRelease): string | null =>
        checked.checkedWith === trustId ? null : upstreamCertificateProblem(appId, app.certificate, trust);
      if (before !== undefined && (await stillListed(before, release, deps.storage))) {
        const problem = rejudged(before);
        if (problem === null) keepListed({ ...before, checkedWith: trustId }, release);
        else record('refused', problem, before.sha256, before.size);
        return;
      }
      // A refusal stands while the upstream offers the same archive and signature, under the same
      // trust settings, and nobody asked to check it again: it is not downloaded again.
      if (
        sameOffer(before, release) &&
        before.status === 'refused' &&
        (await refusalRecheck(before, release, trustId, options, sizeOf)) === null
      ) {
        records.set(key, before);
        return;
      }
      // A release listed before that the upstream now offers otherwise (another archive or
      // signature) stays listed as it was checked when the new offer fails: never worse, unless the
      // trust settings now refuse its certificate.
      const fail = async (status: 'unavailable' | 'refused', reason: string, sha256 = '', size = 0): Promise<void> => {
        if (before?.status === 'listed' && (await deps.storage.has(before.sha256)) && rejudged(before) === null) {
          keepListed(
            { ...before, checkedWith: trustId },
            { ...release, download: before.upstreamDownload, signature: before.signature },
          );
          notTaken.push(
            `${key}: the upstream's new offer was not taken (${reason}); the archive checked before stays listed`,
          );
          return;
        }
        record(status, reason, sha256, size);
      };
      let archive: Buffer;
      try {
        archive = await deps.upstream.archive(release.download);
      } catch (error) {
        if (!isAppError(error)) throw error;
        await fail('unavailable', `the archive could not be downloaded: ${error.detail}`);
        return;
      }
      bytes += archive.length;
      const sha256 = createHash('sha256').update(archive).digest('hex');
      const problem = upstreamArchiveProblem(archive, appId, app.certificate, release.signature, trust);
      if (problem !== null) {
        // Its size is kept: another size upstream later means other bytes, checked again.
        await fail('refused', problem, sha256, archive.length);
        return;
      }
      await deps.storage.put(sha256, archive);
      if (newest) icons.set(appId, await iconOfArchive(archive));
      record('listed', '', sha256, archive.length);
      listed.set(key, {
        upstream: release,
        sha256,
        size: archive.length,
        download,
        ...(fromKept.has(key) ? { fromKept: true } : {}),
      });
      taken += 1;
    },
  );
  return { records, listed, notTaken, icons, bytes, taken, unchanged };
}
