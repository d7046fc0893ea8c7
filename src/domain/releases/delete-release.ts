import { said } from '../../i18n/said.ts';
import { releaseKind } from '../release-kind.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { requireReleaseManager } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import type { KeptArchives } from '../archives/kept-archives.ts';
import { forgetArchives } from '../archives/kept-archives.ts';
import type { ReleaseStore } from './release-store.ts';

export interface DeleteReleaseDeps {
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly releases: ReleaseStore;
  /** The release's archive kept here is deleted with it (unless another release names the same bytes). */
  readonly archives: KeptArchives;
  readonly now: () => Date;
}

/**
 * Contract §7: 404 when the app or that release (nightly or not) does not exist, then 403. Of
 * concurrent deletes of one release, only the one that deleted the row succeeds; the others 404.
 */
export async function deleteRelease(
  target: { appId: string; version: string; nightly: boolean },
  user: User,
  acting: Acting,
  deps: DeleteReleaseDeps,
): Promise<void> {
  const what = said`${releaseKind(target.nightly)} ${target.version} of ${target.appId}`;
  const app = await deps.registry.findApp(target.appId);
  const release = app === null ? null : await deps.releases.findRelease(target.appId, target.version, target.nightly);
  if (app === null || release === null) throw new AppError('release_not_found', said`There is no ${what}.`);
  requireReleaseManager(user, app);
  const audit = auditEntry(acting, 'release.deleted', {
    appId: target.appId,
    details: { version: target.version, nightly: target.nightly },
  });
  if (!(await deps.releases.deleteRelease(release.id, deps.now(), audit)))
    throw new AppError('release_not_found', said`There is no ${what}: it was just deleted.`);
  await forgetArchives([release.sha256], deps.archives);
}
