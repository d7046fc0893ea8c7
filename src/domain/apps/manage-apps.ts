import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { actingRole, requireActingAppManager, requireAdmin } from '../accounts/authorization.ts';
import { findUser } from '../accounts/manage-users.ts';
import type { AccountStore } from '../accounts/user.ts';
import type { AppFlags, AppRegistry } from './app-registry.ts';
import { requireApp } from './app-registry.ts';

/** What managing an app needs: the CLI's `appstore app …`, the developer and administrator pages. */
export interface ManageAppDeps {
  readonly registry: AppRegistry;
  readonly accounts: AccountStore;
  readonly now: () => Date;
  /** An unlock for transfer ended (locked again, or registered): see `UnlockEnded`. */
  readonly unlockEnded: UnlockEnded;
}

/**
 * Called when an app's unlock for transfer ends (issue 49): certificates the store issued for its
 * id to anyone but `owner` since `since` are revoked (domain/identity/unlock-certificates.ts), so a
 * certificate got while the app was open does not outlive the opening.
 */
export type UnlockEnded = (appId: string, since: Date, owner: number, acting: Acting) => Promise<void>;

/** Co-maintainers publish and delete releases; they cannot re-register or delete the app. The owner or an admin adds them. */
export async function addCoMaintainer(
  appId: string,
  username: string,
  acting: Acting,
  deps: ManageAppDeps,
): Promise<boolean> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`add co-maintainers.`);
  const user = await findUser(username, { store: deps.accounts });
  if (user.id === app.ownerId)
    throw new AppError('conflict', said`${user.username} owns ${appId} already.`, {
      username: [said`owns ${appId} already`],
    });
  if (!user.isActive)
    throw new AppError('conflict', said`${user.username}'s account is disabled: enable it first.`, {
      username: [said`this account is disabled`],
    });
  return deps.registry.addCoMaintainer(
    appId,
    user.id,
    deps.now(),
    auditEntry(acting, 'app.co_maintainer_added', { appId, subjectUser: user.username }),
  );
}

/** The owner or an admin removes a co-maintainer; a co-maintainer may also step down themselves. */
export async function removeCoMaintainer(
  appId: string,
  username: string,
  acting: Acting,
  deps: ManageAppDeps,
): Promise<boolean> {
  const app = await requireApp(appId, deps.registry);
  const user = await findUser(username, { store: deps.accounts });
  const self =
    acting.actor.kind === 'user' && acting.actor.userId === user.id && actingRole(acting, app) === 'co-maintainer';
  if (!self)
    requireActingAppManager(acting, app, said`remove co-maintainers (a co-maintainer may remove only themselves).`);
  return deps.registry.removeCoMaintainer(
    appId,
    user.id,
    deps.now(),
    auditEntry(acting, 'app.co_maintainer_removed', { appId, subjectUser: user.username }),
  );
}

/** Featured and enterprise-only are the store's choice: administrators only. */
export async function setAppFlags(
  appId: string,
  flags: AppFlags,
  acting: Acting,
  deps: ManageAppDeps,
): Promise<boolean> {
  await requireApp(appId, deps.registry);
  requireAdmin(acting, said`change whether ${appId} is featured or enterprise-only.`);
  const details = {
    ...(flags.featured === undefined ? {} : { featured: flags.featured }),
    ...(flags.enterpriseOnly === undefined ? {} : { enterpriseOnly: flags.enterpriseOnly }),
  };
  return deps.registry.setFlags(appId, flags, deps.now(), auditEntry(acting, 'app.flags_changed', { appId, details }));
}

/** The next valid registration of this app by anyone takes ownership, and closes the lock. */
export async function unlockTransfer(appId: string, acting: Acting, deps: ManageAppDeps): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`unlock it for transfer.`);
  if (app.transferUnlocked) return;
  await deps.registry.setTransferUnlocked(
    appId,
    true,
    deps.now(),
    auditEntry(acting, 'app.transfer_unlocked', { appId }),
  );
}

/** Takes back an unlock before anyone registered: the app stays with its owner; certificates issued to others meanwhile are revoked. */
export async function lockTransfer(appId: string, acting: Acting, deps: ManageAppDeps): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`lock it against transfer.`);
  if (!app.transferUnlocked) return;
  const locked = await deps.registry.setTransferUnlocked(
    appId,
    false,
    deps.now(),
    auditEntry(acting, 'app.transfer_locked', { appId, details: { transferred: false } }),
  );
  if (locked) await deps.unlockEnded(appId, app.transferUnlockedAt ?? new Date(0), app.ownerId, acting);
}
