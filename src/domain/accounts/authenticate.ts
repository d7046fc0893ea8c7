import { AppError } from '../../errors.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import { decoyHash, verifyPassword } from './password-hash.ts';
import type { SecretKeys } from './secret-key.ts';
import { tokenLookupHash } from './token-codec.ts';
import { toUser } from './user.ts';
import type { AccountStore, User, UserRecord } from './user.ts';

export interface AuthDeps {
  readonly store: AccountStore;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

/** One message for an unknown user, a wrong password and a password-less account. */
export const INVALID_CREDENTIALS =
  'Invalid username or password. Accounts created through an external login have no password: use an API token (Authorization: Token <token>).';
export const INVALID_TOKEN = 'Invalid token: it is unknown or was replaced. Get a new one with POST /api/v1/token/new (Basic authentication).';

function refuseInactive(record: UserRecord): void {
  if (!record.isActive) throw new AppError('not_authenticated', 'This account is disabled. Ask an administrator of the store to enable it.');
}

/** Username and password (Basic or the login form), rate-limited per address and per username. */
export async function authenticateWithPassword(username: string, password: string, clientAddress: string, deps: AuthDeps): Promise<User> {
  const userKey = username.toLowerCase();
  await deps.limiter.check(RATE_LIMITS.failedAuthPerAddress, clientAddress);
  await deps.limiter.check(RATE_LIMITS.failedAuthPerUser, userKey);
  const record = await deps.store.findUserByUsername(username);
  // Always run one scrypt check, so timing does not tell whether the user exists.
  const hash = record?.passwordHash ?? (await decoyHash());
  const matches = await verifyPassword(password, hash);
  if (record === null || record.passwordHash === null || !matches) {
    await deps.limiter.hit(RATE_LIMITS.failedAuthPerAddress, clientAddress);
    await deps.limiter.hit(RATE_LIMITS.failedAuthPerUser, userKey);
    throw new AppError('not_authenticated', INVALID_CREDENTIALS);
  }
  refuseInactive(record);
  await deps.limiter.reset(RATE_LIMITS.failedAuthPerUser, userKey);
  return toUser(record);
}

/** An API token, looked up by its keyed hash; failures count against the client address. */
export async function authenticateWithToken(token: string, clientAddress: string, deps: AuthDeps): Promise<User> {
  await deps.limiter.check(RATE_LIMITS.failedAuthPerAddress, clientAddress);
  const lookupHash = tokenLookupHash(deps.keys, token);
  const record = await deps.store.findUserByTokenHash(lookupHash);
  if (record === null) {
    await deps.limiter.hit(RATE_LIMITS.failedAuthPerAddress, clientAddress);
    throw new AppError('not_authenticated', INVALID_TOKEN);
  }
  refuseInactive(record);
  await deps.store.markTokenUsed(lookupHash, deps.now());
  return toUser(record);
}
