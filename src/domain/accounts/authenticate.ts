import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import type { RateLimiter, SignInRules } from '../rate-limit.ts';
import type { PasswordHasher } from './password-hash.ts';
import type { SecretKeys } from './secret-key.ts';
import { limitsOf } from './scoped-tokens.ts';
import type { AccessTokenStore } from './scoped-tokens.ts';
import type { TwoFactorStore } from './two-factor-store.ts';
import { readScopedToken } from './scoped-token-format.ts';
import { tokenLookupHash } from './token-codec.ts';
import { toUser } from './user.ts';
import type { AccountStore, User, UserRecord } from './user.ts';

export interface AuthDeps {
  readonly store: AccountStore;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly signIn: SignInRules;
  readonly now: () => Date;
  /** Hashes and checks passwords, at the store's cost (APPSTORE_PASSWORD_COST). */
  readonly passwords: PasswordHasher;
  /** Scoped tokens and trusted publishing's (issue 53). */
  readonly tokens: AccessTokenStore;
  /** Second factors (issue 53): Basic may not write for an account that has one. */
  readonly twoFactor: TwoFactorStore;
}

/** One message for an unknown user, a wrong password and a password-less account. */
export const INVALID_CREDENTIALS = said`Invalid username or password. Accounts created through an external login have no password: use an API token (Authorization: Token <token>).`;
export const INVALID_TOKEN = said`Invalid token: it is unknown, or was replaced or revoked. Get one on the account page, or with POST /api/v1/token (Basic authentication, for an account without a second factor).`;

export const ACCOUNT_DISABLED = said`This account is disabled. Ask an administrator of the store to enable it.`;

function refuseInactive(record: UserRecord): void {
  if (!record.isActive) throw new AppError('not_authenticated', ACCOUNT_DISABLED);
}

/**
 * Whether a password sign-in may be tried now. Failures are counted three ways: for the username
 * from this address (always applies), for the username from anywhere and for the address across
 * usernames. The last two slow distributed guessing and password spraying, and do not apply where
 * the username has signed in successfully before (within 30 days): so nobody is locked out by
 * someone else's failures, whether from their address (a CI runner, a company NAT) or against
 * their username. Tokens and sessions are never refused by these counters.
 */
async function refuseWhileGuessing(
  pair: string,
  userKey: string,
  clientAddress: string,
  deps: AuthDeps,
): Promise<void> {
  const { limiter, signIn } = deps;
  await limiter.check(signIn.perUserAndAddress, pair);
  const byUser = await limiter.exceeded(signIn.perUser, userKey);
  const byAddress = byUser ?? (await limiter.exceeded(signIn.perAddress, clientAddress));
  if (byAddress !== null && !(await limiter.seen(signIn.knownAddress, pair))) throw byAddress;
}

/** Username and password (Basic or the login form), rate-limited as `refuseWhileGuessing` says. */
export async function authenticateWithPassword(
  username: string,
  password: string,
  clientAddress: string,
  deps: AuthDeps,
): Promise<User> {
  const userKey = username.toLowerCase();
  const pair = `${userKey} ${clientAddress}`;
  await refuseWhileGuessing(pair, userKey, clientAddress, deps);
  const record = await deps.store.findUserByUsername(username);
  // Always run one scrypt check, so timing does not tell whether the user exists.
  const hash = record?.passwordHash ?? (await deps.passwords.decoyHash());
  const matches = await deps.passwords.verify(password, hash);
  if (record === null || record.passwordHash === null || !matches) {
    await deps.limiter.hit(deps.signIn.perUserAndAddress, pair);
    await deps.limiter.hit(deps.signIn.perUser, userKey);
    await deps.limiter.hit(deps.signIn.perAddress, clientAddress);
    throw new AppError('not_authenticated', INVALID_CREDENTIALS);
  }
  refuseInactive(record);
  if (!record.emailVerified && record.email !== null) {
    throw new AppError(
      'email_not_verified',
      said`Confirm your e-mail address first: follow the link in the mail we sent when you signed up.`,
    );
  }
  await deps.limiter.reset(deps.signIn.perUserAndAddress, pair);
  await deps.limiter.mark(deps.signIn.knownAddress, pair);
  return toUser(record);
}

/**
 * An API token, looked up by its keyed hash. A valid token is never refused by a rate limit;
 * invalid ones count against the client address, and over the limit they are answered 429.
 */
export async function authenticateWithToken(token: string, clientAddress: string, deps: AuthDeps): Promise<User> {
  if (readScopedToken(token) !== null) return authenticateWithScopedToken(token, clientAddress, deps);
  const lookupHash = tokenLookupHash(deps.keys, token);
  const record = await deps.store.findUserByTokenHash(lookupHash);
  if (record === null) {
    await deps.limiter.check(deps.signIn.invalidTokensPerAddress, clientAddress);
    await deps.limiter.hit(deps.signIn.invalidTokensPerAddress, clientAddress);
    throw new AppError('not_authenticated', INVALID_TOKEN);
  }
  refuseInactive(record);
  await deps.store.markTokenUsed(lookupHash, deps.now());
  return toUser(record);
}

async function refuseUnknownToken(clientAddress: string, deps: AuthDeps, detail: Said): Promise<never> {
  await deps.limiter.check(deps.signIn.invalidTokensPerAddress, clientAddress);
  await deps.limiter.hit(deps.signIn.invalidTokensPerAddress, clientAddress);
  throw new AppError('not_authenticated', detail);
}

/**
 * A scoped token (`apst_…`) or trusted publishing's (`aptp_…`): its user, with the token's limits.
 * One with a wrong checksum is refused before any look-up; an expired one is refused by name.
 */
async function authenticateWithScopedToken(token: string, clientAddress: string, deps: AuthDeps): Promise<User> {
  const shape = readScopedToken(token);
  const unknown =
    shape?.kind === 'publishing'
      ? said`Invalid token: this trusted publishing token is unknown or was revoked. Exchange a new ID token at POST /api/v1/trusted-publishing/token.`
      : said`Invalid token: it is unknown or was revoked. Make a new one on the account page or with POST /api/v1/tokens.`;
  if (shape === null || !shape.checksumValid) return refuseUnknownToken(clientAddress, deps, unknown);
  const found = await deps.tokens.findByHash(tokenLookupHash(deps.keys, token));
  if (found === null) return refuseUnknownToken(clientAddress, deps, unknown);
  const now = deps.now();
  const { token: stored, user: record } = found;
  if (stored.expiresAt <= now) {
    throw new AppError(
      'not_authenticated',
      stored.kind === 'publishing'
        ? said`This trusted publishing token expired at ${stored.expiresAt.toISOString()} (they live 15 minutes): exchange a new ID token.`
        : said`The token '${stored.name}' expired on ${stored.expiresAt.toISOString().slice(0, 10)}: make a new one on the account page.`,
    );
  }
  refuseInactive(record);
  await deps.tokens.markUsed(stored.id, now);
  return {
    ...toUser(record),
    limits: limitsOf(stored),
  };
}
