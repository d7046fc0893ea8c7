import { AppError } from '../../errors.ts';
import { findUser } from '../accounts/manage-users.ts';
import type { AccountStore } from '../accounts/user.ts';
import type { AppFlags, AppRegistry, RegisteredApp } from './app-registry.ts';

export interface ManageAppDeps {
  readonly registry: AppRegistry;
  readonly accounts: AccountStore;
  readonly now: () => Date;
}

export async function findApp(appId: string, deps: Pick<ManageAppDeps, 'registry'>): Promise<RegisteredApp> {
  const app = await deps.registry.findApp(appId);
  if (app === null) throw new AppError('app_not_found', `There is no app '${appId.slice(0, 64)}': it must be registered first (POST /api/v1/apps).`);
  return app;
}

/** Co-maintainers publish and delete releases; they cannot re-register or delete the app. */
export async function addCoMaintainer(appId: string, username: string, deps: ManageAppDeps): Promise<boolean> {
  const app = await findApp(appId, deps);
  const user = await findUser(username, { store: deps.accounts });
  if (user.id === app.ownerId) throw new AppError('conflict', `${username} owns ${appId} already.`);
  return deps.registry.addCoMaintainer(appId, user.id, deps.now());
}

export async function removeCoMaintainer(appId: string, username: string, deps: ManageAppDeps): Promise<boolean> {
  await findApp(appId, deps);
  const user = await findUser(username, { store: deps.accounts });
  return deps.registry.removeCoMaintainer(appId, user.id);
}

export async function setAppFlags(appId: string, flags: AppFlags, deps: ManageAppDeps): Promise<boolean> {
  await findApp(appId, deps);
  return deps.registry.setFlags(appId, flags, deps.now());
}

/** The next valid registration of this app by anyone takes ownership, and closes the lock. */
export async function unlockTransfer(appId: string, deps: ManageAppDeps): Promise<void> {
  await findApp(appId, deps);
  await deps.registry.setTransferUnlocked(appId, true, deps.now());
}
