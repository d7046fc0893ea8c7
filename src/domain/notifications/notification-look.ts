import { X509Certificate } from 'node:crypto';
import type { HousekeepingStore } from '../housekeeping.ts';
import { coreSatisfies, parseSpec } from '../versions/semantic-version.ts';
import type { NotificationKind, NotifyQueue } from './notifications.ts';

/**
 * The notifications the store finds by looking, once a day at most (a lease, as the pruning):
 * certificates that expire within 30 days, and a new Nextcloud major (first listed in the last
 * 30 days) that no stable release of an app supports. Each is sent once (by key).
 */

export interface MaintainedApp {
  readonly appId: string;
  readonly certificate: string;
  /** The owner first, then the co-maintainers. */
  readonly maintainerIds: readonly number[];
  /** The Nextcloud ranges of its stable releases offered now. */
  readonly platformSpecs: readonly string[];
}

export interface NotificationStore {
  optedOut(userId: number): Promise<ReadonlySet<string>>;
  setOptedOut(userId: number, kinds: readonly NotificationKind[]): Promise<void>;
  /** True when the key was not sent before (it is now recorded as sent). */
  markSent(key: string, now: Date): Promise<boolean>;
  /** The apps published here (not mirrored), with their maintainers, certificate and releases' ranges. */
  maintainedApps(): Promise<MaintainedApp[]>;
  /** The users' own tokens (not trusted publishing's) that expire between `from` and `until`. */
  expiringTokens(
    from: Date,
    until: Date,
  ): Promise<
    ReadonlyArray<{ readonly id: number; readonly userId: number; readonly name: string; readonly expiresAt: Date }>
  >;
  /** The newest supported Nextcloud major and when its first release was listed; null without any. */
  newestMajor(): Promise<{ readonly major: number; readonly since: string } | null>;
}

export interface NotificationLookDeps {
  readonly store: NotificationStore;
  readonly mail: NotifyQueue;
  readonly now: () => Date;
}

const DAY_MS = 86_400_000;
export const EXPIRY_WARNING_DAYS = 30;
export const NEW_MAJOR_DAYS = 30;
export const TOKEN_WARNING_DAYS = 7;

export interface LookReport {
  readonly expiring: number;
  readonly majors: number;
  readonly tokens: number;
}

export async function lookForNotifications(deps: NotificationLookDeps): Promise<LookReport> {
  const now = deps.now();
  const apps = await deps.store.maintainedApps();
  let expiring = 0;
  for (const app of apps) {
    let notAfter: Date;
    let fingerprint: string;
    try {
      const certificate = new X509Certificate(app.certificate);
      notAfter = new Date(certificate.validTo);
      fingerprint = certificate.fingerprint256.replace(/:/g, '').slice(0, 16);
    } catch {
      continue;
    }
    const left = notAfter.getTime() - now.getTime();
    if (left <= 0 || left > EXPIRY_WARNING_DAYS * DAY_MS) continue;
    if (!(await deps.store.markSent(`certificate-expiring:${app.appId}:${fingerprint}`, now))) continue;
    await deps.mail.enqueue({
      kind: 'notify',
      userIds: app.maintainerIds,
      notification: { kind: 'certificate-expiring', appId: app.appId, notAfter: notAfter.toISOString() },
    });
    expiring += 1;
  }
  let majors = 0;
  const newest = await deps.store.newestMajor();
  if (newest !== null && now.getTime() - Date.parse(newest.since) <= NEW_MAJOR_DAYS * DAY_MS) {
    for (const app of apps) {
      // An app with no stable release is not expected to support anything yet.
      if (app.platformSpecs.length === 0) continue;
      if (app.platformSpecs.some((spec) => coreSatisfies([newest.major, 0, 0], parseSpec(spec)))) continue;
      if (!(await deps.store.markSent(`platform-major:${app.appId}:${newest.major}`, now))) continue;
      await deps.mail.enqueue({
        kind: 'notify',
        userIds: app.maintainerIds,
        notification: { kind: 'platform-major', appId: app.appId, major: newest.major },
      });
      majors += 1;
    }
  }
  let tokens = 0;
  for (const token of await deps.store.expiringTokens(now, new Date(now.getTime() + TOKEN_WARNING_DAYS * DAY_MS))) {
    if (!(await deps.store.markSent(`token-expiring:${token.id}`, now))) continue;
    await deps.mail.enqueue({
      kind: 'notify',
      userIds: [token.userId],
      notification: { kind: 'token-expiring', name: token.name, expiresAt: token.expiresAt.toISOString() },
    });
    tokens += 1;
  }
  return { expiring, majors, tokens };
}

const TASK = 'notify';
const LEASE_MS = 10 * 60_000;
/** The look runs once a day, by one node of all. */
export const LOOK_INTERVAL_MS = DAY_MS;

/** The look when it is due and no other node runs it; null when it did not run. */
export async function runNotificationLook(
  leases: Pick<HousekeepingStore, 'takeLease' | 'release'>,
  holder: string,
  deps: NotificationLookDeps,
): Promise<LookReport | null> {
  const now = deps.now();
  const lease = await leases.takeLease(TASK, holder, now, new Date(now.getTime() + LEASE_MS));
  if (!lease.taken) return null;
  if (lease.lastRunAt !== null && now.getTime() - lease.lastRunAt.getTime() < LOOK_INTERVAL_MS) {
    await leases.release(TASK, holder, null);
    return null;
  }
  try {
    return await lookForNotifications(deps);
  } finally {
    await leases.release(TASK, holder, now);
  }
}
