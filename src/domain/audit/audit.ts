/**
 * The audit log: who changed what, when and from where. Every use case that writes receives the
 * `Acting` (the acting user or the command line, and where the request came from) and hands the
 * store an `AuditEntry` with the change; the store writes the entry in the transaction of the
 * change, and only when something changed. Entries never hold a secret: not a token, a password,
 * a key or a signature, only what identifies the object.
 */
export type Actor =
  /** A signed-in user (API token, password or website session). */
  | { readonly kind: 'user'; readonly userId: number; readonly name: string }
  /** The `appstore` command, run by this operating-system user. */
  | { readonly kind: 'cli'; readonly name: string }
  /** Someone not signed in (a website sign-up): named 'visitor'. */
  | { readonly kind: 'visitor'; readonly name: string };

export interface Acting {
  readonly actor: Actor;
  /**
   * Whether the actor has an administrator's rights: an admin user, or the command line (whoever
   * runs it holds the database). The use cases decide with it; the log does not record it.
   */
  readonly isAdmin: boolean;
  /** The client's address (after APPSTORE_TRUST_PROXY), null from the command line. */
  readonly address: string | null;
  /** The request's id, as in the request log; null from the command line. */
  readonly requestId: string | null;
  /** The scoped token the user acted through (issue 53): recorded with each entry as `via`. */
  readonly via?: string;
}

export const AUDIT_EVENTS = [
  'user.created',
  'user.disabled',
  'user.enabled',
  'user.admin_granted',
  'user.admin_revoked',
  'user.deleted',
  'user.password_changed',
  'user.email_changed',
  'user.email_confirmed',
  'user.external_linked',
  'user.external_unlinked',
  'token.issued',
  'token.replaced',
  'token.created',
  'token.revoked',
  'trusted_publisher.added',
  'trusted_publisher.removed',
  'trusted_publishing.exchanged',
  'oidc_issuer.allowed',
  'oidc_issuer.removed',
  'user.two_factor_enabled',
  'user.two_factor_removed',
  'user.recovery_code_used',
  'user.second_factor_sign_in',
  'user.recovery_codes_renewed',
  'user.passkey_added',
  'user.passkey_removed',
  'settings.two_factor_required',
  'app.registered',
  'app.certificate_changed',
  'app.transferred',
  'app.deleted',
  'app.flags_changed',
  'app.transfer_unlocked',
  'app.transfer_locked',
  'app.co_maintainer_added',
  'app.co_maintainer_removed',
  'app.deprecated',
  'app.undeprecated',
  'app.orphaned',
  'app.adopted',
  'release.published',
  'release.updated',
  'release.deleted',
  'release.retired',
  'release.restored',
  'rating.saved',
  'rating.deleted',
  'rating.reported',
  'rating.replied',
  'rating.hidden',
  'rating.restored',
  'rating.reports-dismissed',
  'rating.removed',
  'user.rating-blocked',
  'user.rating-allowed',
  'categories.imported',
  'platforms.imported',
  'discover.imported',
  'certificate.revoked',
  'certificate.requested',
  'certificate.issued',
  'certificate.rejected',
  'settings.changed',
  'authority.created',
  'authority.rotated',
  'secret_key.rotated',
  'database.restored',
  'mirror.synced',
  'mirror.imported',
  'mirror.sync_failed',
] as const;

export type AuditEventType = (typeof AUDIT_EVENTS)[number];

export type AuditDetails = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

export interface AuditEntry {
  readonly acting: Acting;
  readonly event: AuditEventType;
  readonly appId: string | null;
  /** The user the change is about (a co-maintainer, a created or disabled user), by name. */
  readonly subjectUser: string | null;
  readonly details: AuditDetails;
}

/** An entry for `event` by `acting`; `about` names the app, the user and anything else that identifies the object. */
export function auditEntry(
  acting: Acting,
  event: AuditEventType,
  about: { appId?: string; subjectUser?: string; details?: AuditDetails } = {},
): AuditEntry {
  return {
    acting,
    event,
    appId: about.appId ?? null,
    subjectUser: about.subjectUser ?? null,
    details: acting.via === undefined ? (about.details ?? {}) : { ...about.details, via: acting.via },
  };
}

/** A user acting through a request. */
export function userActing(
  user: {
    id: number;
    username: string;
    isAdmin: boolean;
    limits?: { readonly kind: string; readonly name: string; readonly tokenId: number };
  },
  address: string | null,
  requestId: string | null,
): Acting {
  const acting: Acting = {
    actor: { kind: 'user', userId: user.id, name: user.username },
    isAdmin: user.isAdmin,
    address,
    requestId,
  };
  const limits = user.limits;
  if (limits === undefined) return acting;
  const via =
    limits.kind === 'publishing'
      ? `trusted publishing token #${limits.tokenId} (${limits.name})`
      : `token #${limits.tokenId} '${limits.name}'`;
  return { ...acting, via };
}

/** Someone not signed in, through a request. */
export function visitorActing(address: string | null, requestId: string | null, name = 'visitor'): Acting {
  return { actor: { kind: 'visitor', name }, isAdmin: false, address, requestId };
}

/** The command line, run by `osUser`. */
export function cliActing(osUser: string): Acting {
  return { actor: { kind: 'cli', name: osUser }, isAdmin: true, address: null, requestId: null };
}

/** A stored entry, as `appstore audit` shows it. */
export interface AuditRecord extends Omit<AuditEntry, 'acting'> {
  readonly id: number;
  readonly at: Date;
  readonly actor: Actor;
  readonly address: string | null;
  readonly requestId: string | null;
}

export interface AuditQuery {
  readonly appId?: string;
  /** The acting user's name, or the user the change was about. */
  readonly user?: string;
  readonly since?: Date;
  /** One event ('app.deleted'), or a kind of events ending in a dot ('app.'). */
  readonly event?: string;
  readonly limit: number;
}

export interface AuditLog {
  /** Oldest first. */
  find(query: AuditQuery): Promise<AuditRecord[]>;
}
