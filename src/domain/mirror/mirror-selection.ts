import { isAppError } from '../../errors.ts';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import { parseCategoryFile, parsePlatformFile } from '../catalog/import-file.ts';
import { compareReleaseVersions } from '../versions/semantic-version.ts';
import { takeKeptReleases } from './kept-releases.ts';
import { appLeftOut, chooseReleases, releaseKey } from './mirror-policy.ts';
import type { MirrorPolicy } from './mirror-policy.ts';
import type { ArchiveStorage } from '../archives/archive-storage.ts';
import type { MirrorState, MirroredRelease, PlanReason, SyncOptions, Upstream } from './mirror-ports.ts';
import type { Documents } from './upstream-documents.ts';
import { parseCatalogue, parseListing, upstreamUnusable } from './upstream-documents.ts';
import { mergeListings, UnusableDocument } from './upstream-listing.ts';
import type { UpstreamApp, UpstreamListing, UpstreamRelease } from './upstream-listing.ts';

/**
 * What a sync and a plan consider (docs/mirror.md): the apps and releases the policy takes from
 * the upstream's documents, and for each release whether what was checked before still stands.
 */
export interface Selection {
  readonly listing: UpstreamListing;
  readonly categories: Category[];
  readonly platforms: PlatformRelease[];
  /** The apps taken, each with the releases the policy takes (and those a source keeps: `addKeptReleases`). */
  readonly chosen: { readonly app: UpstreamApp; releases: readonly UpstreamRelease[] }[];
  readonly skipped: number;
  readonly collisions: readonly MirroredRelease[];
}

/** Parses every document (refusing the sync when one is unusable) and applies the policy. */
export function select(documents: Documents, state: MirrorState, policy: MirrorPolicy, at: string): Selection {
  const categories = parseCatalogue('categories', documents.bodies.categories, parseCategoryFile);
  const platforms = parseCatalogue('platforms', documents.bodies.platforms, parsePlatformFile);
  const listing = mergeListings(
    parseListing('apps', documents.bodies.apps),
    parseListing('appapi_apps', documents.bodies.appapi_apps),
  );
  const chosen: { app: UpstreamApp; releases: UpstreamRelease[] }[] = [];
  const collisions: MirroredRelease[] = [];
  let skipped = 0;
  for (const app of listing.apps) {
    const id = app.app.id;
    if (appLeftOut(id, policy) !== null) {
      skipped += app.releases.length;
      continue;
    }
    const releases = chooseReleases(app, platforms, policy);
    skipped += app.releases.length - releases.length;
    if (releases.length === 0) continue;
    if (state.localAppIds.has(id)) {
      const reason = `the app id ${id} belongs to an app registered on this store; an app id has one source`;
      for (const r of releases) {
        collisions.push({
          appId: id,
          version: r.release.version,
          nightly: r.release.isNightly,
          upstreamDownload: r.download,
          signature: r.signature,
          status: 'refused',
          reason,
          sha256: '',
          size: 0,
          checkedAt: at,
          checkedWith: '',
          keptEntry: null,
        });
      }
      continue;
    }
    chosen.push({ app, releases });
  }
  return { listing, categories, platforms, chosen, skipped, collisions };
}

/**
 * The releases a source keeps beyond its documents (an export's kept.json), added to what the
 * sync takes; their entries by key, for their records.
 */
export async function addKeptReleases(
  upstream: Upstream,
  selection: Selection,
  previous: ReadonlyMap<string, MirroredRelease>,
): Promise<Map<string, string>> {
  const body = upstream.kept === undefined ? null : await upstream.kept();
  if (body === null) return new Map();
  try {
    return takeKeptReleases(body, selection.listing, selection.chosen, (key) => previous.has(key));
  } catch (error) {
    if (error instanceof UnusableDocument) throw upstreamUnusable('kept', error.message);
    throw error;
  }
}

/** Whether the upstream still offers what was checked before: the same download and signature (else it is checked again). */
export function sameOffer(
  previous: MirroredRelease | undefined,
  release: UpstreamRelease,
): previous is MirroredRelease {
  return (
    previous !== undefined && previous.upstreamDownload === release.download && previous.signature === release.signature
  );
}

/**
 * Every release the policy takes, with its app, what the store knew of it before, and whether
 * it is the app's newest (the one whose archive gives the app its icon).
 */
export function releasesToCheck(selection: Selection, previous: ReadonlyMap<string, MirroredRelease>) {
  return selection.chosen.flatMap(({ app, releases }) => {
    const newest = releases.reduce<UpstreamRelease | undefined>(
      (best, r) => (best === undefined || compareReleaseVersions(r.release, best.release) > 0 ? r : best),
      undefined,
    );
    return releases.map((release) => {
      const key = releaseKey(app.app.id, release.release.version, release.release.isNightly);
      return { app, release, key, before: previous.get(key), newest: release === newest };
    });
  });
}

/** Whether a release is listed as the upstream still offers it, its archive stored: nothing to fetch. */
export async function stillListed(
  before: MirroredRelease,
  release: UpstreamRelease,
  storage: ArchiveStorage,
): Promise<boolean> {
  return sameOffer(before, release) && before.status === 'listed' && (await storage.has(before.sha256));
}

/**
 * The archive's size upstream by HEAD (null when it does not say, or cannot be asked), asked at
 * most once per URL in one sync or plan.
 */
export function archiveSizes(upstream: Upstream): (url: string) => Promise<number | null> {
  const asked = new Map<string, Promise<number | null>>();
  const ask = async (url: string): Promise<number | null> => {
    try {
      return await upstream.archiveSize(url);
    } catch (error) {
      if (!isAppError(error)) throw error;
      return null;
    }
  };
  return (url) => {
    let size = asked.get(url);
    if (size === undefined) asked.set(url, (size = ask(url)));
    return size;
  };
}

/**
 * Why a refusal of the same offer is judged again, or null when it stands (issue 49: a refusal
 * was never looked at again, whatever was fixed). What refused it may have changed: the trust
 * settings (another root, a new CRL), the archive's bytes upstream (seen as another size by a
 * HEAD; a refusal recorded without a size is checked once more), or the operator asks.
 */
export async function refusalRecheck(
  before: MirroredRelease,
  release: UpstreamRelease,
  trustId: string,
  options: SyncOptions,
  sizeOf: (url: string) => Promise<number | null>,
): Promise<PlanReason | null> {
  if (options.recheck === true) return 'refused before: --recheck';
  if (before.checkedWith !== trustId) return 'refused before: the trust settings changed';
  const size = await sizeOf(release.download);
  if (size !== null && size !== before.size) return "refused before: the archive's size changed upstream";
  return null;
}
