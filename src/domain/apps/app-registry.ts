import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import type { AuditEntry } from '../audit/audit.ts';
import { AppError } from '../../errors.ts';
import type { AppAccess } from '../accounts/authorization.ts';

export interface RegisteredApp extends AppAccess {
  readonly certificate: string;
  readonly transferUnlocked: boolean;
  /** When the owner unlocked it for transfer (null while locked). */
  readonly transferUnlockedAt: Date | null;
  readonly isFeatured: boolean;
  readonly isEnterpriseOnly: boolean;
  /** Taken from the upstream store (mirror mode): nobody registers or publishes it here. */
  readonly fromUpstream: boolean;
}

/** Refuses registering or publishing an app the mirror takes from the upstream: an app id has one source. */
export function refuseUpstreamApp(app: RegisteredApp): void {
  if (app.fromUpstream) {
    throw new AppError(
      'conflict',
      said`App ${app.appId} is taken from the upstream store this store mirrors: an app id has one source, so it cannot be registered or published here. Publish it upstream, or leave it out of the mirror (APPSTORE_MIRROR_EXCLUDE_APPS) and delete it first.`,
    );
  }
}

/** An app as its management pages show it: who owns and co-maintains it, by name. */
export interface AppSummary extends RegisteredApp {
  readonly ownerName: string;
  readonly coMaintainers: ReadonlyArray<{ readonly id: number; readonly username: string }>;
  readonly createdAt: Date;
}

/** What to do with a registration, decided by the domain inside the storage transaction. */
export type RegistrationPlan =
  | { readonly kind: 'create' }
  | {
      readonly kind: 'update';
      readonly ownerId: number;
      readonly certificateChanged: boolean;
      readonly changed: boolean;
    };

export interface AppFlags {
  readonly featured?: boolean;
  readonly enterpriseOnly?: boolean;
}

/** What the app use cases need from storage. Every write that changes a listing bumps the version. */
export interface AppRegistry {
  findApp(appId: string): Promise<RegisteredApp | null>;
  /** Every app (by id); or only those the user owns or co-maintains; or only the one with this id. */
  listApps(filter: { readonly userId?: number; readonly appId?: string }): Promise<AppSummary[]>;
  /**
   * In one transaction: reads the app (null when new), asks `plan` what to do (it may throw to
   * refuse), and applies it: creating the app, or setting owner and certificate, closing the
   * transfer lock, and deleting every release when the certificate changed.
   */
  register(
    appId: string,
    certificate: string,
    userId: number,
    plan: (existing: RegisteredApp | null) => RegistrationPlan,
    now: Date,
    audit: (plan: RegistrationPlan) => AuditEntry | null,
  ): Promise<RegistrationPlan>;
  /** False when the user already was a co-maintainer. Each write records `audit` when it changed something. */
  addCoMaintainer(appId: string, userId: number, now: Date, audit: AuditEntry): Promise<boolean>;
  /** False when the user was not a co-maintainer. */
  removeCoMaintainer(appId: string, userId: number, now: Date, audit: AuditEntry): Promise<boolean>;
  /** Returns whether anything changed. */
  setFlags(appId: string, flags: AppFlags, now: Date, audit: AuditEntry): Promise<boolean>;
  /** Returns whether it changed (false: it was so already, perhaps by a concurrent request). */
  setTransferUnlocked(appId: string, unlocked: boolean, now: Date, audit: AuditEntry): Promise<boolean>;
  /** Deletes the app, its releases and its ratings; false when there was no app to delete. */
  deleteApp(appId: string, now: Date, audit: AuditEntry): Promise<boolean>;
}

/** The one refusal for an app id the store does not know; `why` may add a reason. */
export function appNotFound(appId: string, why?: Said): AppError {
  const id = appId.slice(0, 64);
  return new AppError(
    'app_not_found',
    why === undefined
      ? said`There is no app '${id}' in this store.`
      : said`There is no app '${id}' in this store: ${why}.`,
  );
}

/** The app, or the refusal for an app id the store does not know. */
export async function requireApp(appId: string, registry: Pick<AppRegistry, 'findApp'>): Promise<RegisteredApp> {
  const app = await registry.findApp(appId);
  if (app === null) throw appNotFound(appId);
  return app;
}

/** Certificates compare equal when they differ only in CR characters and outer whitespace. */
export function sameCertificate(a: string, b: string): boolean {
  const normal = (pem: string): string => pem.replace(/\r/g, '').trim();
  return normal(a) === normal(b);
}
