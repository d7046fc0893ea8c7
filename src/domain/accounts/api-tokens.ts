import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { SecretKeys } from './secret-key.ts';
import { decryptToken, encryptToken, generateToken, tokenLookupHash } from './token-codec.ts';
import type { AccountStore, User } from './user.ts';

export interface TokenDeps {
  readonly store: AccountStore;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

/** The user's token (`POST /api/v1/token`, `appstore user token`), created when there is none. */
export async function getOrCreateToken(user: Pick<User, 'id'>, deps: TokenDeps): Promise<string> {
  const existing = await readToken(user.id, deps);
  if (existing !== null) return existing;
  const token = generateToken();
  const inserted = await deps.store.insertTokenIfNone(user.id, tokenLookupHash(deps.keys, token), encryptToken(deps.keys, token, user.id), deps.now());
  if (inserted) return token;
  // A concurrent request created one first: return that one, so both callers agree.
  const winner = await readToken(user.id, deps);
  return winner ?? replaceStoredToken(user.id, deps);
}

/** A new token (`POST /api/v1/token/new`): the old one stops working at once. 30 a minute. */
export async function replaceToken(user: Pick<User, 'id'>, deps: TokenDeps): Promise<string> {
  await deps.limiter.consume(RATE_LIMITS.newToken, String(user.id));
  return replaceStoredToken(user.id, deps);
}

async function replaceStoredToken(userId: number, deps: TokenDeps): Promise<string> {
  const token = generateToken();
  await deps.store.replaceToken(userId, tokenLookupHash(deps.keys, token), encryptToken(deps.keys, token, userId), deps.now());
  return token;
}

/** Null when there is none, or when it was sealed with another secret key (then it is replaced). */
async function readToken(userId: number, deps: TokenDeps): Promise<string | null> {
  const sealed = await deps.store.findEncryptedToken(userId);
  if (sealed === null) return null;
  return decryptToken(deps.keys, sealed, userId) ?? replaceStoredToken(userId, deps);
}
