import { said } from '../../i18n/said.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAppManager } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { KeptArchives } from '../archives/kept-archives.ts';
import { forgetArchives } from '../archives/kept-archives.ts';
import type { AppRegistry } from './app-registry.ts';
import { appNotFound, requireApp } from './app-registry.ts';

export interface DeleteAppDeps {
  readonly registry: AppRegistry;
  /** The app's releases' archives kept here are deleted with it. */
  readonly archives: KeptArchives;
  readonly now: () => Date;
}

/**
 * `DELETE /api/v1/apps/{id}` (contract §7): the owner (or an admin) deletes the app and all its
 * releases (and the archives kept of them). Of concurrent deletes, only the one that deleted the row succeeds; the others 404.
 */
export async function deleteApp(appId: string, user: User, acting: Acting, deps: DeleteAppDeps): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireAppManager(user, app, said`delete it (co-maintainers may publish and delete releases only).`);
  const archives = await deps.archives.references.ofApp(appId);
  if (!(await deps.registry.deleteApp(appId, deps.now(), auditEntry(acting, 'app.deleted', { appId }))))
    throw appNotFound(appId, said`it was just deleted`);
  await forgetArchives(archives, deps.archives);
}
