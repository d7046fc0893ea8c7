import { said } from '../../i18n/said.ts';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { AuthDeps } from './authenticate.ts';
import { authenticateWithPassword } from './authenticate.ts';
import { toUser } from './user.ts';
import { checkSecondFactor } from './two-factor.ts';
import type { TwoFactorDeps } from './two-factor.ts';
import { userActing } from '../audit/audit.ts';
import { hmacHex } from './token-codec.ts';
import type { User } from './user.ts';

export const SESSION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export type SessionDeps = AuthDeps;

export interface NewSession {
  /** Goes into the HttpOnly cookie; the database holds only its HMAC. */
  readonly sessionId: string;
  /** Must come back in X-CSRF-Token on every state-changing session request. */
  readonly csrfToken: string;
  readonly expiresAt: Date;
  readonly user: User;
}

export interface ActiveSession {
  readonly user: User;
  readonly csrfTokenHash: string;
}

const randomId = (): string => randomBytes(32).toString('base64url');

/**
 * `POST /login`: checks the password (same limits as Basic) and opens a server-side session. An
 * account with a second factor needs `code` too (the authenticator app's, or a recovery code).
 */
export async function login(
  username: string,
  password: string,
  clientAddress: string,
  deps: SessionDeps & TwoFactorDeps,
  code?: string,
): Promise<NewSession> {
  const user = await authenticateWithPassword(username, password, clientAddress, deps);
  if (user.twoFactor === true) {
    if (code === undefined || code.trim() === '')
      throw new AppError(
        'second_factor_required',
        said`This account signs in with a second factor: send "code" with the password (the 6 digits of the authenticator app, or a recovery code).`,
      );
    await checkSecondFactor(user, code, userActing(user, clientAddress, null), deps);
  }
  return openSession(user, deps);
}

/** A new session for a user already authenticated (after sign-in, or after a password change ended the others). */
export async function openSession(user: User, deps: SessionDeps): Promise<NewSession> {
  const now = deps.now();
  const sessionId = randomId();
  const csrfToken = randomId();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await deps.store.createSession(
    hmacHex(deps.keys.session, sessionId),
    user.id,
    hmacHex(deps.keys.session, csrfToken),
    now,
    expiresAt,
  );
  return { sessionId, csrfToken, expiresAt, user };
}

/** The session's user, or null when the id is unknown, expired, or its user disabled. */
export async function resolveSession(sessionId: string, deps: SessionDeps): Promise<ActiveSession | null> {
  const stored = await deps.store.findSession(hmacHex(deps.keys.session, sessionId), deps.now());
  if (stored === null || !stored.user.isActive) return null;
  return { user: toUser(stored.user), csrfTokenHash: stored.csrfTokenHash };
}

/** Refuses a state-changing session request whose X-CSRF-Token is missing or wrong. */
export function checkCsrf(session: ActiveSession, provided: string | undefined, deps: Pick<SessionDeps, 'keys'>): void {
  const expected = Buffer.from(session.csrfTokenHash, 'hex');
  const actual = Buffer.from(hmacHex(deps.keys.session, provided ?? ''), 'hex');
  if (provided === undefined || provided === '' || !timingSafeEqual(expected, actual)) {
    throw new AppError(
      'csrf_failed',
      said`CSRF check failed: send the csrfToken returned by POST /login in the X-CSRF-Token header.`,
    );
  }
}

/** `POST /logout`: ends a live session, with its CSRF token; an unknown or expired one is already over. */
export async function logout(sessionId: string, csrfToken: string | undefined, deps: SessionDeps): Promise<void> {
  const session = await resolveSession(sessionId, deps);
  if (session === null) return;
  checkCsrf(session, csrfToken, deps);
  await endSession(sessionId, deps);
}

/** Ends a session whose request was already checked (the website's sign-out form carries its own token). */
export async function endSession(sessionId: string, deps: Pick<SessionDeps, 'store' | 'keys'>): Promise<void> {
  await deps.store.deleteSession(hmacHex(deps.keys.session, sessionId));
}
