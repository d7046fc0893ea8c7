import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAppInScope } from './token-scopes.ts';
import type { User } from './user.ts';

/** Who may act on an app: its owner, its co-maintainers, and the store's admins. */
export interface AppAccess {
  readonly appId: string;
  readonly ownerId: number;
  readonly coMaintainerIds: readonly number[];
}

export type AppRole = 'owner' | 'co-maintainer' | 'admin' | 'none';

/** The one rule: the owner, a co-maintainer, else an administrator or nobody. `userId` null: not a user (the command line, a visitor). */
function role(userId: number | null, isAdmin: boolean, access: AppAccess): AppRole {
  if (userId === access.ownerId) return 'owner';
  if (userId !== null && access.coMaintainerIds.includes(userId)) return 'co-maintainer';
  return isAdmin ? 'admin' : 'none';
}

export function roleOn(user: User, access: AppAccess): AppRole {
  return role(user.id, user.isAdmin, access);
}

/**
 * The role of whoever acts (`Acting`): a user by their own role, the command line as an
 * administrator, a visitor who is not signed in as nobody.
 */
export function actingRole(acting: Acting, access: AppAccess): AppRole {
  return role(acting.actor.kind === 'user' ? acting.actor.userId : null, acting.isAdmin, access);
}

/** Publishing and deleting releases: owner, co-maintainers, admins. */
export function canManageReleases(user: User, access: AppAccess): boolean {
  return roleOn(user, access) !== 'none';
}

/** Registering the certificate and deleting the app: owner and admins, not co-maintainers. */
export function canManageApp(user: User, access: AppAccess): boolean {
  const role = roleOn(user, access);
  return role === 'owner' || role === 'admin';
}

/** Rating: anyone but the app's own maintainers. */
export function canRate(user: User, access: AppAccess): boolean {
  const role = roleOn(user, access);
  return role !== 'owner' && role !== 'co-maintainer';
}

export function requireReleaseManager(user: User, access: AppAccess): void {
  requireAppInScope(user, access.appId);
  if (!canManageReleases(user, access)) {
    throw new AppError(
      'forbidden',
      said`Only the owner and co-maintainers of ${access.appId} may publish or delete its releases.`,
    );
  }
}

/** `action` completes "Only the owner of <app> may …", and may add a sentence of advice. */
export function requireAppManager(user: User, access: AppAccess, action: Said): void {
  requireAppInScope(user, access.appId);
  if (!canManageApp(user, access))
    throw new AppError('forbidden', said`Only the owner of ${access.appId} may ${action}`);
}

/** The same rule as `requireAppManager`, decided for whoever acts (a user, or the command line). */
export function requireActingAppManager(acting: Acting, access: AppAccess, action: Said): void {
  const role = actingRole(acting, access);
  if (role !== 'owner' && role !== 'admin')
    throw new AppError('forbidden', said`Only the owner of ${access.appId} (or an administrator) may ${action}`);
}

/** `action` completes "Only administrators may …". */
export function requireAdmin(acting: Acting, action: Said): void {
  if (!acting.isAdmin) throw new AppError('forbidden', said`Only administrators may ${action}`);
}
