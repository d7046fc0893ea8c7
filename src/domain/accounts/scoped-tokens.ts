import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { appIdProblem } from '../app-id.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import { generateScopedToken } from './scoped-token-format.ts';
import type { SecretKeys } from './secret-key.ts';
import { tokenLookupHash } from './token-codec.ts';
import { isTokenScope, requireScope, TOKEN_SCOPES } from './token-scopes.ts';
import type { CredentialKind, CredentialLimits } from './token-scopes.ts';
import type { User, UserRecord } from './user.ts';
import type { TwoFactorStore } from './two-factor-store.ts';
import { refuseWithoutRequiredFactor } from './two-factor.ts';

/** A scoped token as stored and listed (its limits, and whose it is): never its text, which is shown once. */
export interface AccessToken extends Omit<CredentialLimits, 'tokenId'> {
  readonly id: number;
  readonly userId: number;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

/** What a request that came with this token may do. */
export function limitsOf(token: AccessToken): CredentialLimits {
  const { id, userId: _user, createdAt: _created, lastUsedAt: _used, ...limits } = token;
  return { ...limits, tokenId: id };
}

export type NewAccessToken = Omit<AccessToken, 'id' | 'lastUsedAt'> & { readonly lookupHash: string };

export interface AccessTokenStore {
  insert(token: NewAccessToken, audit: AuditEntry, now: Date): Promise<number>;
  findByHash(lookupHash: string): Promise<{ readonly token: AccessToken; readonly user: UserRecord } | null>;
  /** Records the use (at most about once a minute). */
  markUsed(id: number, now: Date): Promise<void>;
  /** The user's tokens of this kind, newest first. */
  list(userId: number, kind: CredentialKind): Promise<AccessToken[]>;
  /** False when the user has no such token. */
  revoke(userId: number, id: number, audit: AuditEntry, now: Date): Promise<boolean>;
  /** Revokes every scoped token of the user and the unscoped one; how many there were. */
  revokeAll(userId: number, audit: AuditEntry, now: Date): Promise<number>;
  /** Deletes the account's unscoped token (`DELETE /api/v1/token` with it); false when there was none. */
  revokeUnscoped(userId: number, audit: AuditEntry, now: Date): Promise<boolean>;
}

export interface ScopedTokenDeps {
  readonly tokens: AccessTokenStore;
  readonly twoFactor: Pick<TwoFactorStore, 'requirement' | 'ownsApps'>;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

const DAY_MS = 86_400_000;
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 365;
export const MAX_TOKEN_APPS = 50;
const MAX_NAME_LENGTH = 100;

export interface TokenRequest {
  readonly name: string;
  readonly scopes: readonly string[];
  /** Omitted or empty: every app of the account. */
  readonly apps?: readonly string[];
  readonly expiresInDays?: number;
}

function refuse(field: string, message: Said): AppError {
  return new AppError('invalid_request', said`Cannot make this token: ${message}.`, { [field]: [message] });
}

/** The request checked: each problem named by its field. A scoped token may make only tokens within its own limits. */
function checkedRequest(user: User, request: TokenRequest, now: Date) {
  const name = request.name.trim();
  if (name === '' || name.length > MAX_NAME_LENGTH)
    throw refuse('name', said`a token needs a name of 1 to ${MAX_NAME_LENGTH} characters, to tell it apart later`);
  const unknown = request.scopes.filter((scope) => !isTokenScope(scope));
  if (unknown.length > 0)
    throw refuse(
      'scopes',
      said`unknown scope ${unknown.map((s) => `'${s}'`).join(', ')}; the scopes are ${TOKEN_SCOPES.join(', ')}`,
    );
  const scopes = TOKEN_SCOPES.filter((scope) => request.scopes.includes(scope));
  if (scopes.length === 0) throw refuse('scopes', said`choose at least one scope of ${TOKEN_SCOPES.join(', ')}`);
  if (request.apps !== undefined && request.apps.length === 0)
    throw refuse('apps', said`name at least one app, or leave "apps" out for a token for every app`);
  const apps = [...new Set(request.apps ?? [])];
  for (const app of apps) {
    const problem = appIdProblem(app);
    if (problem !== null) throw refuse('apps', said`'${app.slice(0, 40)}' is not an app id: ${problem}`);
  }
  if (apps.length > MAX_TOKEN_APPS) throw refuse('apps', said`a token may name at most ${MAX_TOKEN_APPS} apps`);
  const days = request.expiresInDays ?? DEFAULT_TOKEN_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_DAYS)
    throw refuse('expiresInDays', said`a token lives 1 to ${MAX_TOKEN_DAYS} days (whole days)`);
  const expiresAt = new Date(now.getTime() + days * DAY_MS);
  const limits = user.limits;
  if (limits !== undefined) {
    for (const scope of scopes) requireScope(user, scope);
    if (limits.apps !== null) {
      const outside = apps.length === 0 ? ['every app'] : apps.filter((app) => !limits.apps?.includes(app));
      if (outside.length > 0)
        throw new AppError(
          'insufficient_scope',
          said`This token may act only on ${limits.apps.join(', ')}: it cannot make a token for ${outside.join(', ')}.`,
          { apps: [said`outside this token's apps: ${outside.join(', ')}`] },
        );
    }
    if (expiresAt > limits.expiresAt)
      throw refuse(
        'expiresInDays',
        said`a token made by a token may not outlive it (this one expires on ${limits.expiresAt.toISOString().slice(0, 10)})`,
      );
  }
  return { name, scopes, apps: apps.length === 0 ? null : apps.sort(), expiresAt };
}

/** A new scoped token: its text (shown once) and what was stored. 100 an hour per user. */
export async function createScopedToken(
  user: User,
  request: TokenRequest,
  acting: Acting,
  deps: ScopedTokenDeps,
): Promise<{ readonly token: string; readonly record: AccessToken }> {
  const now = deps.now();
  if (user.limits === undefined) await refuseWithoutRequiredFactor(user, deps);
  const checked = checkedRequest(user, request, now);
  await deps.limiter.consume(RATE_LIMITS.scopedToken, String(user.id));
  const token = generateScopedToken('personal');
  const stored: NewAccessToken = {
    userId: user.id,
    kind: 'personal',
    name: checked.name,
    scopes: checked.scopes,
    apps: checked.apps,
    createdAt: now,
    expiresAt: checked.expiresAt,
    provenance: null,
    lookupHash: tokenLookupHash(deps.keys, token),
  };
  const audit = auditEntry(acting, 'token.created', {
    subjectUser: user.username,
    details: {
      name: checked.name,
      scopes: checked.scopes.join(' '),
      apps: checked.apps?.join(' ') ?? 'all',
      expiresAt: checked.expiresAt.toISOString(),
    },
  });
  const id = await deps.tokens.insert(stored, audit, now);
  const { lookupHash: _hash, ...record } = stored;
  return { token, record: { ...record, id, lastUsedAt: null } };
}

/**
 * Whether a token lies within the limits of the credential that asks: every one for a full
 * credential; for a scoped token (with `token:manage`), those with no scope and no app it lacks.
 * A scoped token sees and revokes only those, so a token for one app cannot undo the others.
 */
function withinLimits(user: User, token: AccessToken): boolean {
  const limits = user.limits;
  if (limits === undefined) return true;
  const apps = limits.apps;
  return (
    token.scopes.every((scope) => limits.scopes.includes(scope)) &&
    (apps === null || (token.apps !== null && token.apps.every((app) => apps.includes(app))))
  );
}

export async function listScopedTokens(user: User, deps: ScopedTokenDeps): Promise<AccessToken[]> {
  return (await deps.tokens.list(user.id, 'personal')).filter((token) => withinLimits(user, token));
}

/** Trusted publishing's tokens for the user's apps that still work: CI jobs running now (the tokens page lists them). */
export async function activePublishingTokens(user: User, deps: ScopedTokenDeps): Promise<AccessToken[]> {
  const now = deps.now();
  return (await deps.tokens.list(user.id, 'publishing')).filter(
    (token) => token.expiresAt > now && withinLimits(user, token),
  );
}

export async function revokeScopedToken(user: User, id: number, acting: Acting, deps: ScopedTokenDeps): Promise<void> {
  const audit = auditEntry(acting, 'token.revoked', { subjectUser: user.username, details: { token: id } });
  const token = [
    ...(await deps.tokens.list(user.id, 'personal')),
    ...(await deps.tokens.list(user.id, 'publishing')),
  ].find((entry) => entry.id === id);
  if (token !== undefined && !withinLimits(user, token))
    throw new AppError(
      'insufficient_scope',
      said`Token ${id} may do more than this token may: revoke it with a wider one.`,
    );
  if (token === undefined || !(await deps.tokens.revoke(user.id, id, audit, deps.now())))
    throw new AppError('not_found', said`You have no token ${id}: it was revoked already, or is another account's.`);
}

/**
 * Every token of the account, scoped and unscoped: what to do after a leak. Asked with a scoped
 * token, the tokens within its limits (the unscoped one is not).
 */
export async function revokeAllTokens(user: User, acting: Acting, deps: ScopedTokenDeps): Promise<number> {
  const audit = auditEntry(acting, 'token.revoked', { subjectUser: user.username, details: { token: 'all' } });
  if (user.limits === undefined) return deps.tokens.revokeAll(user.id, audit, deps.now());
  let revoked = 0;
  for (const token of await listScopedTokens(user, deps)) {
    const one = auditEntry(acting, 'token.revoked', { subjectUser: user.username, details: { token: token.id } });
    if (await deps.tokens.revoke(user.id, token.id, one, deps.now())) revoked += 1;
  }
  return revoked;
}

/** `DELETE /api/v1/token`: the token the request came with stops working, whatever its scopes. */
export async function revokePresentedToken(user: User, acting: Acting, deps: ScopedTokenDeps): Promise<void> {
  const limits = user.limits;
  const audit = auditEntry(acting, 'token.revoked', {
    subjectUser: user.username,
    details: { token: limits?.tokenId ?? 'unscoped', by: 'itself' },
  });
  const done =
    limits === undefined
      ? await deps.tokens.revokeUnscoped(user.id, audit, deps.now())
      : await deps.tokens.revoke(user.id, limits.tokenId, audit, deps.now());
  if (!done) throw new AppError('not_authenticated', said`This token was revoked already.`);
}
