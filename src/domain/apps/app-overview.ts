import { said } from '../../i18n/said.ts';
import type { Acting, AuditLog, AuditRecord } from '../audit/audit.ts';
import type { AppRole } from '../accounts/authorization.ts';
import { actingRole, requireAdmin } from '../accounts/authorization.ts';
import { AppError } from '../../errors.ts';
import type { AppRegistry, AppSummary } from './app-registry.ts';
import { appNotFound } from './app-registry.ts';

/** What the developer and administrator pages read of apps. */
export interface AppOverviewDeps {
  readonly registry: Pick<AppRegistry, 'listApps'>;
  readonly audit: AuditLog;
}

export interface ManagedApp extends AppSummary {
  /** The reader's role on it (an administrator's, for apps they neither own nor co-maintain). */
  readonly role: AppRole;
}

/** The apps the signed-in user owns or co-maintains ("My apps"). */
export async function myApps(acting: Acting, deps: AppOverviewDeps): Promise<ManagedApp[]> {
  if (acting.actor.kind !== 'user') return [];
  const apps = await deps.registry.listApps({ userId: acting.actor.userId });
  return apps.map((app) => ({ ...app, role: actingRole(acting, app) }));
}

/** Every app of the store: administrators only. */
export async function allApps(acting: Acting, deps: AppOverviewDeps): Promise<ManagedApp[]> {
  requireAdmin(acting, said`list every app with its owners.`);
  return (await deps.registry.listApps({})).map((app) => ({ ...app, role: actingRole(acting, app) }));
}

/**
 * One app for its management page: its owner, co-maintainers and administrators see it; anyone
 * else is refused (whether the id exists is public: the app page shows it).
 */
export async function managedApp(appId: string, acting: Acting, deps: AppOverviewDeps): Promise<ManagedApp> {
  const [app] = await deps.registry.listApps({ appId });
  if (app === undefined && acting.isAdmin) throw appNotFound(appId);
  const role = app === undefined ? 'none' : actingRole(acting, app);
  if (app === undefined || role === 'none') {
    throw new AppError(
      'forbidden',
      said`Only the owner and co-maintainers of ${appId.slice(0, 64)} (and administrators) may manage it. If it is yours, sign in with the account that registered it.`,
    );
  }
  return { ...app, role };
}

/** The audit trail (newest first) of an app `managedApp` gave its reader: those who may manage it. */
export async function appAuditTrail(app: ManagedApp, deps: AppOverviewDeps, limit = 200): Promise<AuditRecord[]> {
  return (await deps.audit.find({ appId: app.appId, limit })).reverse();
}
