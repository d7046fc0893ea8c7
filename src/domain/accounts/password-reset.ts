import { auditEntry, userActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import { readLink, takeLink } from './account-links.ts';
import type { SelfServiceDeps } from './account-links.ts';
import { checkEmailAddress } from './manage-users.ts';
import { checkNewPassword } from './password-rules.ts';
import type { User } from './user.ts';
import { toUser } from './user.ts';

/**
 * "Forgot your password": queues a reset link for every active account with this address. The
 * request does the same whether or not there is one (the limits, per client address and per
 * address asked for, and one queued job): which accounts the address has is looked up after the
 * answer, so neither the answer nor its time tells. A new link replaces older ones.
 */
export async function requestPasswordReset(email: string, clientAddress: string, deps: SelfServiceDeps): Promise<void> {
  const address = email.trim();
  checkEmailAddress(address);
  await deps.limiter.consume(RATE_LIMITS.resetPerAddress, clientAddress);
  await deps.limiter.consume(RATE_LIMITS.resetPerEmail, address.toLowerCase());
  await deps.mail.enqueue({ kind: 'password-reset', email: address });
}

/** An operator's invitation (sign-up closed): the mailed link sets the first password and confirms the address. */
export async function sendInvitation(user: User, deps: SelfServiceDeps): Promise<void> {
  if (user.email === null) throw new Error('an invitation needs an address');
  await deps.mail.enqueue({ kind: 'invitation', userId: user.id });
}

/** The account a reset link is for (the page that asks for the new password); invalid_link when it does not work. */
export async function resetLinkUser(secret: string, deps: SelfServiceDeps): Promise<User> {
  const link = await readLink(secret, 'reset-password', deps);
  const user = await deps.store.findUserById(link.userId);
  if (user === null) throw new Error('a link outlived its user'); // links are deleted with their user
  return toUser(user);
}

/**
 * Sets the new password from a reset link. The password is checked before the link is used up,
 * so a refused password leaves the link working. Every session of the user ends; the address the
 * link was mailed to counts as confirmed.
 */
export async function resetPassword(
  secret: string,
  password: string,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: SelfServiceDeps,
): Promise<void> {
  const user = await resetLinkUser(secret, deps);
  await checkNewPassword(password, [user.username, user.email ?? '']);
  const link = await takeLink(secret, 'reset-password', deps);
  const hash = await deps.passwords.hash(password);
  const now = deps.now();
  // The holder of the link acts as its user.
  const acting = userActing(user, origin.address, origin.requestId);
  await deps.store.setPasswordHash(
    link.userId,
    hash,
    now,
    auditEntry(acting, 'user.password_changed', { subjectUser: user.username, details: { by: 'reset link' } }),
  );
  if (link.email !== null && !user.emailVerified) {
    await deps.store.setVerifiedEmail(
      link.userId,
      link.email,
      now,
      auditEntry(acting, link.email === user.email ? 'user.email_confirmed' : 'user.email_changed', {
        subjectUser: user.username,
        details: { by: 'reset link' },
      }),
    );
  }
  await deps.store.deleteUserSessions(link.userId);
  await deps.store.deleteLinks(link.userId, 'reset-password');
}
