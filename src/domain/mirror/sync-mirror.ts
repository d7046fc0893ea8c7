import { said } from '../../i18n/said.ts';
import { createHash } from 'node:crypto';
import { isAppError } from '../../errors.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { DiscoverEntry } from '../discover/discover-document.ts';
import { parseDiscoverFile } from '../discover/discover-document.ts';
import { checkReleases } from './check-releases.ts';
import { keepListedBefore } from './listed-before.ts';
import { releaseKey } from './mirror-policy.ts';
import type { ListedRelease, MirrorDeps, MirroredApp, SyncOptions, SyncReport } from './mirror-ports.ts';
import { addKeptReleases, select } from './mirror-selection.ts';
import { trustDigest } from './upstream-archive-check.ts';
import type { Documents } from './upstream-documents.ts';
import { parseJson, readDocuments } from './upstream-documents.ts';
import type { UpstreamApp } from './upstream-listing.ts';

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
  requireAdmin(acting, event === 'mirror.synced' ? said`sync the mirror.` : said`import a mirror export.`);
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
  const checks = await checkReleases(selection, deps, { at, trust, trustId, previous, fromKept, options });
  const { records, listed, notTaken, icons, bytes, taken, unchanged } = checks;
  for (const collision of selection.collisions)
    records.set(releaseKey(collision.appId, collision.version, collision.nightly), collision);

  const keptByApp = keepListedBefore(selection, state, deps, { at, trust, trustId, previous, records });
  const upstreamApps = new Set(selection.listing.apps.map((app) => app.app.id));

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
