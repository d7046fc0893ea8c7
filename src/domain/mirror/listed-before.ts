import type { Judging } from './check-releases.ts';
import { certificateOfEntry, entriesOfDocuments } from './kept-releases.ts';
import { appLeftOut, chooseReleases, releaseKey } from './mirror-policy.ts';
import type { MirrorDeps, MirrorState, MirroredApp, MirroredRelease } from './mirror-ports.ts';
import type { Selection } from './mirror-selection.ts';
import { upstreamCertificateProblem } from './upstream-archive-check.ts';

/** What a sync judges the releases listed before by, and what this sync recorded. */
export interface ListedBeforeContext extends Judging {
  /** This sync's records so far, by release key; those kept from before are added to it. */
  readonly records: Map<string, MirroredRelease>;
}

/**
 * What was listed before and is not taken now (issue 49: the policy applies to every app):
 * - gone upstream: it stays (unless the operator drops them), but a nightly only while the app
 *   has no newer nightly listed (one nightly per app, as upstream);
 * - still upstream, not taken by the policy: removed, except that an app whose release failed a
 *   check keeps what the policy takes from its releases without the failed ones (never worse);
 * - either way, only while its certificate passes under the current trust settings.
 * Returns the releases kept, by app; their records (or refusals) are added to `context.records`.
 */
export function keepListedBefore(
  selection: Selection,
  state: MirrorState,
  deps: Pick<MirrorDeps, 'policy' | 'archiveUrl'>,
  context: ListedBeforeContext,
): Map<string, MirroredApp['kept'][number][]> {
  const { at, trust, trustId, previous, records } = context;
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
  return keptByApp;
}
