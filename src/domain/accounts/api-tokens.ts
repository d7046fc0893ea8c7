import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { SecretKeys } from './secret-key.ts';
import { decryptToken, encryptToken, generateToken, tokenLookupHash } from './token-codec.ts';
import type { AccountStore, User } from './user.ts';
import type { TwoFactorStore } from './two-factor-store.ts';
import { refuseWithoutRequiredFactor } from './two-factor.ts';

export interface TokenDeps {
  readonly store: AccountStore;
  /** Whether an administrator requires a second factor the user lacks (then no token). */
  readonly twoFactor: Pick<TwoFactorStore, 'requirement' | 'ownsApps'>;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

/** The user's token (`POST /api/v1/token`, `appstore user token`), created when there is none. */
type TokenOwner = Pick<User, 'id' | 'username' | 'isAdmin' | 'twoFactor' | 'hasPassword'>;

/** The user's token (`POST /api/v1/token`, `appstore user token`), created when there is none. */
export async function getOrCreateToken(user: TokenOwner, acting: Acting, deps: TokenDeps): Promise<string> {
  await refuseWithoutRequiredFactor(user, deps);
  const existing = await readToken(user, acting, deps);
  if (existing !== null) return existing;
  const token = generateToken();
  const audit = auditEntry(acting, 'token.issued', { subjectUser: user.username });
  const inserted = await deps.store.insertTokenIfNone(
    user.id,
    tokenLookupHash(deps.keys, token),
    encryptToken(deps.keys, token, user.id),
    deps.now(),
    audit,
  );
  if (inserted) return token;
  // A concurrent request created one first: return that one, so both callers agree.
  const winner = await readToken(user, acting, deps);
  return winner ?? replaceStoredToken(user, acting, 'asked for', deps);
}

/** A new token (`POST /api/v1/token/new`): the old one stops working at once. 30 a minute. */
export async function replaceToken(user: TokenOwner, acting: Acting, deps: TokenDeps): Promise<string> {
  await refuseWithoutRequiredFactor(user, deps);
  await deps.limiter.consume(RATE_LIMITS.newToken, String(user.id));
  return replaceStoredToken(user, acting, 'asked for', deps);
}

async function replaceStoredToken(user: TokenOwner, acting: Acting, reason: string, deps: TokenDeps): Promise<string> {
  const token = generateToken();
  const audit = auditEntry(acting, 'token.replaced', { subjectUser: user.username, details: { reason } });
  await deps.store.replaceToken(
    user.id,
    tokenLookupHash(deps.keys, token),
    encryptToken(deps.keys, token, user.id),
    deps.now(),
    audit,
  );
  return token;
}

/** Null when there is none, or when it was sealed with another secret key (then it is replaced). */
async function readToken(user: TokenOwner, acting: Acting, deps: TokenDeps): Promise<string | null> {
  const sealed = await deps.store.findEncryptedToken(user.id);
  if (sealed === null) return null;
  return (
    decryptToken(deps.keys, sealed, user.id) ??
    replaceStoredToken(user, acting, 'the stored one was unreadable under the secret key', deps)
  );
}
