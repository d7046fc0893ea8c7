import { said } from '../../i18n/said.ts';
import { releaseKind } from '../release-kind.ts';
import { AppError } from '../../errors.ts';
import { appIdProblem } from '../app-id.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { actingRole, requireActingAppManager } from '../accounts/authorization.ts';
import type { NotifyQueue } from '../notifications/notifications.ts';
import type { AppRegistry } from './app-registry.ts';
import { appNotFound, requireApp } from './app-registry.ts';

/**
 * Saying an app is over (issue 52), as npm deprecates, hex.pm retires and the original marks
 * `is_deprecated` / `is_orphan`: the owner (or an administrator) deprecates the app with a reason
 * and, optionally, the app to use instead, or says it looks for maintainers; a release is retired
 * (security, broken, other) and is no longer offered to servers. All of it is in the listings
 * (additive fields, only where set), on the pages, audited, and carried over by mirrors.
 */

export const RETIREMENT_REASONS = ['security', 'broken', 'other'] as const;
export type RetirementReason = (typeof RETIREMENT_REASONS)[number];

export interface Deprecation {
  readonly reason: string;
  /** The app to use instead ('' none). */
  readonly successor: string;
}

export interface RetiredRelease {
  readonly version: string;
  readonly nightly: boolean;
  readonly reason: RetirementReason;
  readonly note: string;
  readonly at: string;
}

export interface AppStatus {
  readonly deprecated: (Deprecation & { readonly at: string }) | null;
  readonly orphanedSince: string | null;
  readonly retired: readonly RetiredRelease[];
}

export interface AppStatusStore {
  status(appId: string): Promise<AppStatus>;
  /** False when the app is gone. */
  setDeprecation(appId: string, deprecation: Deprecation | null, now: Date, audit: AuditEntry): Promise<boolean>;
  setOrphan(appId: string, orphan: boolean, now: Date, audit: AuditEntry): Promise<boolean>;
  /** False when there is no such release (or it is already as asked). */
  setRetired(
    target: { readonly appId: string; readonly version: string; readonly nightly: boolean },
    retirement: { readonly reason: RetirementReason; readonly note: string } | null,
    now: Date,
    audit: AuditEntry,
  ): Promise<boolean>;
}

export interface AppStatusDeps {
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly statuses: AppStatusStore;
  /** The app's maintainers are mailed when an administrator (not one of them) retires a release. */
  readonly notify: NotifyQueue;
  readonly now: () => Date;
}

/** The longest reason or note kept (a few sentences, shown on the pages and in the listings). */
export const MAX_STATUS_TEXT = 500;

function text(field: string, value: string, required: boolean): string {
  const trimmed = value.replace(/\s+/g, ' ').trim();
  if (required && trimmed === '')
    throw new AppError('invalid_request', said`Invalid request body: ${field}: say why, in a sentence or two.`, {
      [field]: [said`say why, in a sentence or two`],
    });
  if (trimmed.length > MAX_STATUS_TEXT)
    throw new AppError(
      'invalid_request',
      said`Invalid request body: ${field}: at most ${MAX_STATUS_TEXT} characters.`,
      {
        [field]: [said`at most ${MAX_STATUS_TEXT} characters`],
      },
    );
  return trimmed;
}

/** Deprecates the app (owner or administrator), or (`null`) takes the deprecation back. */
export async function deprecateApp(
  appId: string,
  deprecation: Deprecation | null,
  acting: Acting,
  deps: AppStatusDeps,
): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`deprecate it.`);
  let value: Deprecation | null = null;
  if (deprecation !== null) {
    const successor = deprecation.successor.trim();
    if (successor !== '') {
      const problem = appIdProblem(successor);
      if (problem !== null || successor === appId || (await deps.registry.findApp(successor)) === null)
        throw new AppError(
          'invalid_request',
          said`Invalid request body: successor: ${successor === appId ? said`an app cannot succeed itself` : problem !== null ? said`not an app id` : said`there is no app ${successor} in this store`}.`,
          { successor: [successor === appId ? said`an app cannot succeed itself` : said`no such app in this store`] },
        );
    }
    value = { reason: text('reason', deprecation.reason, true), successor };
  }
  const audit = auditEntry(acting, value === null ? 'app.undeprecated' : 'app.deprecated', {
    appId,
    details: value === null ? {} : { reason: value.reason, successor: value.successor },
  });
  if (!(await deps.statuses.setDeprecation(appId, value, deps.now(), audit)))
    throw appNotFound(appId, said`it was just deleted`);
}

/** Says the app looks for maintainers (owner or administrator), or no longer. */
export async function setOrphan(appId: string, orphan: boolean, acting: Acting, deps: AppStatusDeps): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`say it looks for maintainers.`);
  const audit = auditEntry(acting, orphan ? 'app.orphaned' : 'app.adopted', { appId });
  if (!(await deps.statuses.setOrphan(appId, orphan, deps.now(), audit)))
    throw appNotFound(appId, said`it was just deleted`);
}

/**
 * Retires a release (owner, co-maintainers, administrators: those who may delete it), or
 * (`null`) offers it again. A retired release stays on the manage page, with its reason.
 */
export async function retireRelease(
  target: { readonly appId: string; readonly version: string; readonly nightly: boolean },
  retirement: { readonly reason: string; readonly note: string } | null,
  acting: Acting,
  deps: AppStatusDeps,
): Promise<void> {
  const app = await requireApp(target.appId, deps.registry);
  if (actingRole(acting, app) === 'none')
    throw new AppError(
      'forbidden',
      said`Only the owner and co-maintainers of ${target.appId} may retire its releases.`,
    );
  let value: { reason: RetirementReason; note: string } | null = null;
  if (retirement !== null) {
    const reason = RETIREMENT_REASONS.find((r) => r === retirement.reason);
    if (reason === undefined)
      throw new AppError(
        'invalid_request',
        said`Invalid request body: reason: one of ${RETIREMENT_REASONS.join(', ')}, not '${retirement.reason.slice(0, 20)}'.`,
        { reason: [said`one of ${RETIREMENT_REASONS.join(', ')}`] },
      );
    value = { reason, note: text('note', retirement.note, false) };
  }
  const audit = auditEntry(acting, value === null ? 'release.restored' : 'release.retired', {
    appId: target.appId,
    details: { version: target.version, nightly: target.nightly, ...(value ?? {}) },
  });
  if (!(await deps.statuses.setRetired(target, value, deps.now(), audit)))
    throw new AppError(
      'release_not_found',
      value === null
        ? said`There is no retired ${releaseKind(target.nightly)} ${target.version} of ${target.appId}.`
        : said`There is no ${releaseKind(target.nightly)} ${target.version} of ${target.appId} to retire (or it is retired already).`,
    );
  if (value !== null && actingRole(acting, app) === 'admin')
    await deps.notify.enqueue({
      kind: 'notify',
      userIds: [app.ownerId, ...app.coMaintainerIds],
      notification: { kind: 'release-retired', ...target, reason: value.reason, note: value.note },
    });
}
