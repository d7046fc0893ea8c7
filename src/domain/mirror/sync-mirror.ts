import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../errors.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import { parseCategoryFile, parsePlatformFile } from '../catalog/import-file.ts';
import type { DiscoverEntry } from '../discover/discover-document.ts';
import { parseDiscoverFile } from '../discover/discover-document.ts';
import { inBatches } from '../in-batches.ts';
import { appLeftOut, chooseReleases, releaseKey } from './mirror-policy.ts';
import type { MirrorPolicy } from './mirror-policy.ts';
import type { AppIcon } from '../releases/app-icon.ts';
import { iconOfArchive } from '../releases/read-release.ts';
import { compareReleaseVersions } from '../versions/semantic-version.ts';
import { certificateOfEntry, entriesOfDocuments, takeKeptReleases } from './kept-releases.ts';
import { trustDigest, upstreamArchiveProblem, upstreamCertificateProblem } from './upstream-archive-check.ts';
import { mergeListings, parseUpstreamListing, UnusableDocument } from './upstream-listing.ts';
import type { UpstreamApp, UpstreamListing, UpstreamRelease } from './upstream-listing.ts';
import { DOCUMENTS } from './mirror-ports.ts';
import type {
  ArchiveStorage,
  DocumentAnswer,
  DocumentName,
  ListedRelease,
  MirrorDeps,
  MirrorState,
  MirrorStatus,
  MirrorUpdate,
  MirroredApp,
  MirroredRelease,
  PlanReason,
  ReleaseStatus,
  SyncOptions,
  SyncPlan,
  SyncReport,
  Upstream,
} from './mirror-ports.ts';

const upstreamUnusable = (name: string, problem: string): AppError =>
  new AppError(
    'upstream_unusable',
    `The upstream's ${name}.json cannot be used (${problem}): nothing was changed; the previous data stays served.`,
  );

interface Documents {
  readonly fresh: MirrorUpdate['documents'];
  readonly status: Record<DocumentName, 'unchanged' | 'fetched'>;
  readonly bodies: Record<DocumentName, string>;
}

async function readDocuments(deps: MirrorDeps, state: MirrorState): Promise<Documents> {
  const fresh: { name: DocumentName; etag: string | null; body: string }[] = [];
  const status = {} as Record<DocumentName, 'unchanged' | 'fetched'>;
  const bodies = {} as Record<DocumentName, string>;
  for (const name of DOCUMENTS) {
    const stored = state.documents.get(name);
    let answer: DocumentAnswer;
    try {
      answer = await deps.upstream.document(name, stored?.etag ?? null);
      if (answer.kind === 'unchanged' && stored === undefined) answer = await deps.upstream.document(name, null);
    } catch (error) {
      if (!isAppError(error)) throw error;
      throw new AppError(
        'upstream_unavailable',
        `The upstream ${deps.upstream.url} could not be read (${name}.json: ${error.detail}): nothing was changed; the previous data stays served.`,
      );
    }
    if (answer.kind === 'unchanged') {
      status[name] = 'unchanged';
      bodies[name] = stored?.body ?? '';
    } else {
      status[name] = 'fetched';
      bodies[name] = answer.body;
      fresh.push({ name, etag: answer.etag, body: answer.body });
    }
  }
  return { fresh, status, bodies };
}

function parseJson(name: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw upstreamUnusable(name, 'not JSON');
  }
}

function parseListing(name: DocumentName, body: string): UpstreamListing {
  try {
    return parseUpstreamListing(parseJson(name, body), name === 'appapi_apps');
  } catch (error) {
    if (error instanceof UnusableDocument) throw upstreamUnusable(name, error.message);
    throw error;
  }
}

function parseCatalogue<T>(name: DocumentName, body: string, parse: (data: unknown) => T): T {
  try {
    return parse(parseJson(name, body));
  } catch (error) {
    if (isAppError(error) && error.code !== 'upstream_unusable') throw upstreamUnusable(name, error.detail);
    throw error;
  }
}

interface Selection {
  readonly listing: UpstreamListing;
  readonly categories: Category[];
  readonly platforms: PlatformRelease[];
  /** The apps taken, each with the releases the policy takes (and those a source keeps: `addKeptReleases`). */
  readonly chosen: { readonly app: UpstreamApp; releases: readonly UpstreamRelease[] }[];
  readonly skipped: number;
  readonly collisions: readonly MirroredRelease[];
}

/** Parses every document (refusing the sync when one is unusable) and applies the policy. */
function select(documents: Documents, state: MirrorState, policy: MirrorPolicy, at: string): Selection {
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
async function addKeptReleases(
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
function sameOffer(previous: MirroredRelease | undefined, release: UpstreamRelease): previous is MirroredRelease {
  return (
    previous !== undefined && previous.upstreamDownload === release.download && previous.signature === release.signature
  );
}

/**
 * Every release the policy takes, with its app, what the store knew of it before, and whether
 * it is the app's newest (the one whose archive gives the app its icon).
 */
function releasesToCheck(selection: Selection, previous: ReadonlyMap<string, MirroredRelease>) {
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
async function stillListed(
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
function archiveSizes(upstream: Upstream): (url: string) => Promise<number | null> {
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
async function refusalRecheck(
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

function appHash(app: UpstreamApp, listed: readonly ListedRelease[], kept: MirroredApp['kept']): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ ...app, releases: undefined }));
  for (const release of listed) hash.update(JSON.stringify([release.upstream, release.sha256, release.download]));
  hash.update(JSON.stringify(kept));
  return hash.digest('hex');
}

/**
 * `appstore mirror sync` and the scheduled sync (docs/mirror.md): the upstream's documents with
 * If-None-Match, the policy's releases, each new archive downloaded, checked as a Nextcloud server
 * would and stored by its SHA-256, then everything applied in one transaction. An upstream that is
 * down or answers what is not a listing changes nothing; a release whose archive fails a check is
 * not listed, and is reported with the reason.
 */
export async function syncMirror(
  acting: Acting,
  deps: MirrorDeps,
  event: 'mirror.synced' | 'mirror.imported' = 'mirror.synced',
  extraDetails: Readonly<Record<string, string>> = {},
  options: SyncOptions = {},
): Promise<SyncReport> {
  requireAdmin(acting, event === 'mirror.synced' ? 'sync the mirror.' : 'import a mirror export.');
  const started = Date.now();
  const state = await deps.store.state();
  let documents: Documents;
  try {
    documents = await readDocuments(deps, state);
  } catch (error) {
    // A sync that could not read the upstream is in the audit log and the status too (issue 49).
    if (isAppError(error))
      await deps.store.recordFailure(
        auditEntry(acting, 'mirror.sync_failed', {
          details: { upstream: deps.upstream.url, code: error.code, reason: error.detail.slice(0, 500) },
        }),
        deps.now(),
      );
    throw error;
  }
  const at = deps.now().toISOString();
  const selection = select(documents, state, deps.policy, at);
  const trust = await deps.trust();
  const trustId = trustDigest(trust);
  const previous = new Map(state.releases.map((r) => [releaseKey(r.appId, r.version, r.nightly), r]));
  /** Releases the source keeps beyond its documents (an export's), taken as they are, by their key. */
  const fromKept = await addKeptReleases(deps.upstream, selection, previous);
  const sizeOf = archiveSizes(deps.upstream);

  const records = new Map<string, MirroredRelease>();
  const listed = new Map<string, ListedRelease>();
  /** New offers of listed releases that failed (the release stays listed as before). */
  const notTaken: string[] = [];
  /** The icons of the apps whose newest release was downloaded now. */
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
  for (const collision of selection.collisions)
    records.set(releaseKey(collision.appId, collision.version, collision.nightly), collision);

  // What was listed before and is not taken now (issue 49: the policy applies to every app):
  // - gone upstream: it stays (unless the operator drops them), but a nightly only while the app
  //   has no newer nightly listed (one nightly per app, as upstream);
  // - still upstream, not taken by the policy: removed, except that an app whose release failed a
  //   check keeps what the policy takes from its releases without the failed ones (never worse);
  // - either way, only while its certificate passes under the current trust settings.
  const upstreamApps = new Map(selection.listing.apps.map((app) => [app.app.id, app]));
  const failedKeys = new Set([...records.entries()].filter(([, r]) => r.status !== 'listed').map(([key]) => key));
  const fallbackCache = new Map<string, Set<string>>();
  /** What the policy takes of the app's releases without those that failed now. */
  const fallback = (appId: string): Set<string> => {
    const known = fallbackCache.get(appId);
    if (known !== undefined) return known;
    const app = upstreamApps.get(appId);
    const taken = new Set<string>();
    if (app !== undefined) {
      const usable = {
        ...app,
        releases: app.releases.filter(
          (r) => !failedKeys.has(releaseKey(appId, r.release.version, r.release.isNightly)),
        ),
      };
      for (const r of chooseReleases(usable, selection.platforms, deps.policy))
        taken.add(releaseKey(appId, r.release.version, r.release.isNightly));
    }
    fallbackCache.set(appId, taken);
    return taken;
  };
  const upstreamKeys = new Set(
    selection.listing.apps.flatMap((app) =>
      app.releases.map((r) => releaseKey(app.app.id, r.release.version, r.release.isNightly)),
    ),
  );
  /** Apps with a nightly listed by this sync: an older nightly gone upstream is not kept beside it. */
  const withNightly = new Set(
    [...records.values()].filter((r) => r.status === 'listed' && r.nightly).map((r) => r.appId),
  );
  const keptByApp = new Map<string, MirroredApp['kept'][number][]>();
  const previousEntries = entriesOfDocuments(state.documents);
  for (const [key, record] of previous) {
    if (record.status !== 'listed' || records.has(key) || appLeftOut(record.appId, deps.policy) !== null) continue;
    const goneUpstream = !upstreamKeys.has(key);
    if (goneUpstream) {
      if (deps.policy.dropRemoved) continue;
      if (record.nightly && withNightly.has(record.appId)) continue;
    } else if (!fallback(record.appId).has(key)) continue;
    const keptEntry = record.keptEntry ?? previousEntries(record.appId, record.version, record.nightly);
    // Its certificate: the app's as the upstream lists it now, else as its kept entry has it (an
    // app gone upstream altogether); a record from before kept entries has neither, and waits.
    const certificate = upstreamApps.get(record.appId)?.certificate ?? certificateOfEntry(keptEntry);
    const problem =
      record.checkedWith === trustId || certificate === null
        ? null
        : upstreamCertificateProblem(record.appId, certificate, trust);
    if (problem !== null) {
      records.set(key, {
        ...record,
        status: 'refused',
        reason: problem,
        checkedAt: at,
        checkedWith: trustId,
        keptEntry,
      });
      continue;
    }
    records.set(key, { ...record, checkedWith: certificate === null ? record.checkedWith : trustId, keptEntry });
    keptByApp.set(record.appId, [
      ...(keptByApp.get(record.appId) ?? []),
      {
        version: record.version,
        nightly: record.nightly,
        download: deps.archiveUrl(record.appId, record.version, record.nightly),
      },
    ]);
  }

  const apps: MirroredApp[] = [];
  for (const { app, releases } of selection.chosen) {
    const appId = app.app.id;
    const appListed = releases
      .map((r) => listed.get(releaseKey(appId, r.release.version, r.release.isNightly)))
      .filter((r): r is ListedRelease => r !== undefined);
    const kept = keptByApp.get(appId) ?? [];
    if (appListed.length === 0 && kept.length === 0) continue;
    // The app's icon comes from its newest release, when that one was downloaded now.
    const icon = icons.get(appId);
    apps.push({
      upstream: app,
      listed: appListed,
      kept,
      hash: appHash(app, appListed, kept),
      ...(icon === undefined ? {} : { icon }),
    });
  }
  const taking = new Set(apps.map((app) => app.upstream.app.id));
  const keptApps = [...keptByApp.keys()].filter((id) => !taking.has(id) && !upstreamApps.has(id));
  const droppedApps = [...state.mirroredApps.keys()].filter((id) => !taking.has(id) && !keptApps.includes(id));

  const problems = [...selection.listing.problems, ...notTaken];
  let discover: DiscoverEntry[] | null = null;
  if (documents.status.discover === 'fetched' || documents.status.apps === 'fetched') {
    const served = new Set([...taking, ...keptApps, ...state.localAppIds]);
    try {
      discover = parseDiscoverFile(parseJson('discover', documents.bodies.discover), {
        appExists: (id) => served.has(id),
      });
    } catch (error) {
      if (!isAppError(error)) throw error;
      problems.push(`discover.json not taken (the previous entries stay): ${error.detail.slice(0, 500)}`);
    }
  }

  const refused = [...records.entries()]
    .filter(([, r]) => r.status !== 'listed')
    .map(([release, r]) => ({ release, reason: r.reason }));
  const removed = [...previous.values()].filter(
    (r) => r.status === 'listed' && records.get(releaseKey(r.appId, r.version, r.nightly))?.status !== 'listed',
  ).length;
  const report: SyncReport = {
    upstream: deps.upstream.url,
    documents: documents.status,
    apps: apps.length + keptApps.length,
    taken,
    unchanged,
    skipped: selection.skipped,
    refused,
    removed,
    bytes,
    durationMs: Date.now() - started,
    problems,
  };
  for (const { release, reason } of refused) deps.log(`mirror: ${release} not listed: ${reason}`);
  const entry = auditEntry(acting, event, {
    details: {
      upstream: report.upstream,
      taken,
      unchanged,
      skipped: report.skipped,
      refused: refused.length,
      removed,
      bytes,
      durationMs: report.durationMs,
      apps: report.apps,
      ...extraDetails,
    },
  });
  await deps.store.apply(
    {
      documents: documents.fresh,
      categories: documents.status.categories === 'fetched' ? selection.categories : null,
      platforms: documents.status.platforms === 'fetched' ? selection.platforms : null,
      discover,
      apps,
      droppedApps,
      releases: [...records.values()],
    },
    deps.now(),
    entry,
  );
  return report;
}

/** `appstore mirror plan`: what a sync would fetch now, without downloading an archive or changing anything. */
export async function planMirror(acting: Acting, deps: MirrorDeps, options: SyncOptions = {}): Promise<SyncPlan> {
  requireAdmin(acting, 'plan a mirror sync.');
  const state = await deps.store.state();
  const documents = await readDocuments(deps, state);
  const selection = select(documents, state, deps.policy, deps.now().toISOString());
  const trustId = trustDigest(await deps.trust());
  const previous = new Map(state.releases.map((r) => [releaseKey(r.appId, r.version, r.nightly), r]));
  const releases: { release: string; bytes: number | null; why: PlanReason }[] = [];
  const sizeOf = archiveSizes(deps.upstream);
  let refusedBefore = 0;
  let rejudged = 0;
  await inBatches(releasesToCheck(selection, previous), deps.concurrency ?? 4, async ({ release, key, before }) => {
    // As the sync: what is listed is not fetched again (its certificate is judged again under new
    // trust settings), nor a refusal that stands; an archive that could not be downloaded is.
    if (before !== undefined && (await stillListed(before, release, deps.storage))) {
      if (before.checkedWith !== trustId) rejudged += 1;
      return;
    }
    let why: PlanReason;
    if (before === undefined) why = 'new';
    else if (!sameOffer(before, release)) why = 'changed upstream';
    else if (before.status === 'refused') {
      const again = await refusalRecheck(before, release, trustId, options, sizeOf);
      if (again === null) {
        refusedBefore += 1;
        return;
      }
      why = again;
    } else why = before.status === 'listed' ? 'archive missing here' : 'unavailable before';
    releases.push({ release: key, bytes: await sizeOf(release.download), why });
  });
  releases.sort((a, b) => a.release.localeCompare(b.release));
  return {
    upstream: deps.upstream.url,
    apps: selection.chosen.length,
    releases,
    bytes: releases.reduce((sum, r) => sum + (r.bytes ?? 0), 0),
    unknownSizes: releases.filter((r) => r.bytes === null).length,
    skipped: selection.skipped,
    refusedBefore,
    rejudged,
    problems: [
      ...selection.listing.problems,
      ...selection.collisions.map((c) => `${releaseKey(c.appId, c.version, c.nightly)}: ${c.reason}`),
    ],
  };
}

/** `appstore mirror status`: the documents last read and every release considered, listed or not and why. */
export function mirrorStatus(acting: Acting, deps: Pick<MirrorDeps, 'store'>): Promise<MirrorStatus> {
  requireAdmin(acting, 'read the mirror status.');
  return deps.store.status();
}
