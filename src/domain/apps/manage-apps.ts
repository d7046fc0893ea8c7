import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { findUser } from '../accounts/manage-users.ts';
import type { AccountStore } from '../accounts/user.ts';
import type { AppFlags, AppRegistry } from './app-registry.ts';
import { requireApp } from './app-registry.ts';

/** What the administrator's app commands need (`appstore app …`, later the admin pages). */
export interface ManageAppDeps {
  readonly registry: AppRegistry;
  readonly accounts: AccountStore;
  readonly now: () => Date;
}

/** Co-maintainers publish and delete releases; they cannot re-register or delete the app. */
export async function addCoMaintainer(appId: string, username: string, acting: Acting, deps: ManageAppDeps): Promise<boolean> {
  const app = await requireApp(appId, deps.registry);
  const user = await findUser(username, { store: deps.accounts });
  if (user.id === app.ownerId) throw new AppError('conflict', `${username} owns ${appId} already.`);
  return deps.registry.addCoMaintainer(appId, user.id, deps.now(), auditEntry(acting, 'app.co_maintainer_added', { appId, subjectUser: user.username }));
}

export async function removeCoMaintainer(appId: string, username: string, acting: Acting, deps: ManageAppDeps): Promise<boolean> {
  await requireApp(appId, deps.registry);
  const user = await findUser(username, { store: deps.accounts });
  return deps.registry.removeCoMaintainer(appId, user.id, deps.now(), auditEntry(acting, 'app.co_maintainer_removed', { appId, subjectUser: user.username }));
}

export async function setAppFlags(appId: string, flags: AppFlags, acting: Acting, deps: ManageAppDeps): Promise<boolean> {
  await requireApp(appId, deps.registry);
  const details = { ...(flags.featured === undefined ? {} : { featured: flags.featured }), ...(flags.enterpriseOnly === undefined ? {} : { enterpriseOnly: flags.enterpriseOnly }) };
  return deps.registry.setFlags(appId, flags, deps.now(), auditEntry(acting, 'app.flags_changed', { appId, details }));
}

/** The next valid registration of this app by anyone takes ownership, and closes the lock. */
export async function unlockTransfer(appId: string, acting: Acting, deps: ManageAppDeps): Promise<void> {
  await requireApp(appId, deps.registry);
  await deps.registry.setTransferUnlocked(appId, true, deps.now(), auditEntry(acting, 'app.transfer_unlocked', { appId }));
}
