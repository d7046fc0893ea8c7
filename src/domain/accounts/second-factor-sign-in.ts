import { said } from '../../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry, userActing } from '../audit/audit.ts';
import type { SessionDeps, NewSession } from './sessions.ts';
import { openSession } from './sessions.ts';
import { hmacHex } from './token-codec.ts';
import { checkPasskey, checkSecondFactor } from './two-factor.ts';
import type { TwoFactorDeps } from './two-factor.ts';
import { toUser } from './user.ts';
import type { User } from './user.ts';

/**
 * A website sign-in whose password was right, waiting for the second factor (issue 53): a
 * random id in an HttpOnly cookie (its keyed hash stored), ten minutes, one account. The session
 * opens only once a code of the authenticator app, a recovery code or a passkey checks out.
 */
export const SECOND_FACTOR_WINDOW_MS = 10 * 60_000;

export type SignInDeps = SessionDeps & TwoFactorDeps;

const expired = (): AppError =>
  new AppError('not_authenticated', said`This sign-in has expired (ten minutes): sign in with your password again.`);

export async function beginSecondFactor(user: User, next: string, deps: SignInDeps): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  const now = deps.now();
  await deps.twoFactor.createChallenge(
    hmacHex(deps.keys.session, id),
    user.id,
    'sign-in',
    next,
    new Date(now.getTime() + SECOND_FACTOR_WINDOW_MS),
  );
  return id;
}

export interface PendingSignIn {
  readonly user: User;
  readonly next: string;
  readonly hasTotp: boolean;
  readonly hasPasskeys: boolean;
}

export async function pendingSignIn(id: string | undefined, deps: SignInDeps): Promise<PendingSignIn | null> {
  if (id === undefined) return null;
  const pending = await deps.twoFactor.findChallenge(hmacHex(deps.keys.session, id), 'sign-in', deps.now());
  if (pending === null) return null;
  const record = await deps.store.findUserById(pending.userId);
  if (record === null || !record.isActive) return null;
  const totp = await deps.twoFactor.totp(record.id);
  const passkeys = await deps.twoFactor.passkeys(record.id);
  return {
    user: toUser(record),
    next: pending.next,
    hasTotp: totp?.confirmed === true,
    hasPasskeys: passkeys.length > 0,
  };
}

/** The sign-in under way with this id, or the refusal to start again. */
async function requirePending(
  id: string | undefined,
  deps: SignInDeps,
): Promise<{ readonly id: string; readonly pending: PendingSignIn }> {
  const pending = await pendingSignIn(id, deps);
  if (pending === null || id === undefined) throw expired();
  return { id, pending };
}

async function finish(
  id: string,
  pending: PendingSignIn,
  factor: string,
  address: string,
  requestId: string,
  deps: SignInDeps,
): Promise<{ session: NewSession; next: string }> {
  // The sign-in under way ends (it cannot be finished twice) with its audit entry, then the session opens.
  await deps.twoFactor.finishSignIn(
    hmacHex(deps.keys.session, id),
    auditEntry(userActing(pending.user, address, requestId), 'user.second_factor_sign_in', {
      subjectUser: pending.user.username,
      details: { factor },
    }),
    deps.now(),
  );
  return { session: await openSession(pending.user, deps), next: pending.next };
}

/** The second step with a code: the authenticator app's, or a recovery code. */
export async function finishWithCode(
  id: string | undefined,
  code: string,
  address: string,
  requestId: string,
  deps: SignInDeps,
): Promise<{ session: NewSession; next: string }> {
  const { pending, id: known } = await requirePending(id, deps);
  const factor = await checkSecondFactor(pending.user, code, userActing(pending.user, address, requestId), deps);
  return finish(known, pending, factor, address, requestId, deps);
}

/** The options for the browser's passkey prompt; the challenge is kept with the sign-in. */
export async function passkeySignInOptions(id: string | undefined, deps: SignInDeps): Promise<unknown> {
  const { pending, id: known } = await requirePending(id, deps);
  const passkeys = await deps.twoFactor.passkeys(pending.user.id);
  if (passkeys.length === 0) throw new AppError('conflict', said`This account has no passkey: use a code.`);
  const { options, challenge } = await deps.passkeys.authenticationOptions(passkeys);
  await deps.twoFactor.setChallenge(hmacHex(deps.keys.session, known), challenge);
  return options;
}

export async function finishWithPasskey(
  id: string | undefined,
  response: unknown,
  address: string,
  requestId: string,
  deps: SignInDeps,
): Promise<{ session: NewSession; next: string }> {
  const { pending, id: known } = await requirePending(id, deps);
  const stored = await deps.twoFactor.findChallenge(hmacHex(deps.keys.session, known), 'sign-in', deps.now());
  if (stored === null || stored.challenge === null || stored.challenge === '')
    throw new AppError('not_authenticated', said`Ask for the passkey prompt first.`);
  try {
    await checkPasskey(pending.user, response, stored.challenge, deps);
  } finally {
    // A challenge answers one prompt: after a try, right or wrong, the next needs a new one.
    await deps.twoFactor.setChallenge(hmacHex(deps.keys.session, known), '');
  }
  return finish(known, pending, 'passkey', address, requestId, deps);
}
