import { said } from '../../i18n/said.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Acting } from '../audit/audit.ts';
import { inBatches } from '../in-batches.ts';
import { releaseKey } from './mirror-policy.ts';
import type { MirrorDeps, PlanReason, SyncOptions, SyncPlan } from './mirror-ports.ts';
import { archiveSizes, refusalRecheck, releasesToCheck, sameOffer, select, stillListed } from './mirror-selection.ts';
import { trustDigest } from './upstream-archive-check.ts';
import { readDocuments } from './upstream-documents.ts';

/** `appstore mirror plan`: what a sync would fetch now, without downloading an archive or changing anything. */
export async function planMirror(acting: Acting, deps: MirrorDeps, options: SyncOptions = {}): Promise<SyncPlan> {
  requireAdmin(acting, said`plan a mirror sync.`);
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
