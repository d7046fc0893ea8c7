import { said } from '../../i18n/said.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { AppError } from '../../errors.ts';
import type { SelfServiceDeps } from './account-links.ts';
import { authenticateWithPassword } from './authenticate.ts';
import { checkEmailAddress } from './manage-users.ts';
import { checkNewPassword } from './password-rules.ts';
import { sendVerification, tellOwnerAddressIsTaken } from './sign-up.ts';
import type { User } from './user.ts';

/**
 * The account page's changes each ask for the current password, checked with the sign-in limits.
 * An account without one (external login) has only its session to show, which its provider's
 * sign-in opened: that is the proof, except for deletion, where the username is typed instead.
 */
async function confirmPassword(
  user: User,
  password: string,
  clientAddress: string,
  deps: SelfServiceDeps,
): Promise<void> {
  if (!user.hasPassword) return;
  try {
    await authenticateWithPassword(user.username, password, clientAddress, deps);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_authenticated') {
      throw new AppError('not_authenticated', said`Your current password is not right.`, {
        current_password: [said`is not right`],
      });
    }
    throw error;
  }
}

/** Changes the password, or sets a first one; every session of the user ends (the caller opens a new one for this browser). */
export async function changePassword(
  user: User,
  current: string,
  password: string,
  acting: Acting,
  deps: SelfServiceDeps,
): Promise<void> {
  const clientAddress = acting.address ?? '';
  await confirmPassword(user, current, clientAddress, deps);
  await checkNewPassword(password, [user.username, user.email ?? '']);
  await deps.store.setPasswordHash(
    user.id,
    await deps.passwords.hash(password),
    deps.now(),
    auditEntry(acting, 'user.password_changed', { subjectUser: user.username }),
  );
  await deps.store.deleteUserSessions(user.id);
}

/** Mails a confirmation link to the new address; the account keeps the old one until it is followed. */
export async function changeEmail(
  user: User,
  password: string,
  email: string,
  clientAddress: string,
  deps: SelfServiceDeps,
): Promise<void> {
  const address = email.trim();
  checkEmailAddress(address);
  await confirmPassword(user, password, clientAddress, deps);
  const owners = await deps.store.findUsersByEmail(address);
  if (owners.some((owner) => owner.id === user.id))
    throw new AppError('invalid_user', said`This is already your address.`, { email: [said`is already your address`] });
  if (owners.length > 0) {
    await tellOwnerAddressIsTaken(address, deps);
    return;
  }
  await sendVerification(user, address, false, deps);
}

/**
 * Deletes the account with its token, sessions, ratings, co-maintainerships and connected
 * identities; `proof` is the password (or, without one, the typed username). Refused while the
 * user owns apps: they must be transferred or deleted first, and the refusal names them.
 */
export async function deleteAccount(user: User, proof: string, acting: Acting, deps: SelfServiceDeps): Promise<void> {
  if (user.hasPassword) await confirmPassword(user, proof, acting.address ?? '', deps);
  else if (proof.trim() !== user.username)
    throw new AppError('invalid_user', said`Type your username to confirm the deletion.`, {
      confirm_username: [said`is not your username`],
    });
  const { deleted, ownedApps } = await deps.store.deleteUserUnlessOwner(
    user.id,
    deps.now(),
    auditEntry(acting, 'user.deleted', { subjectUser: user.username }),
  );
  if (!deleted) {
    const shown =
      ownedApps.slice(0, 10).join(', ') + (ownedApps.length > 10 ? ` and ${ownedApps.length - 10} more` : '');
    throw new AppError(
      'conflict',
      ownedApps.length === 1
        ? said`You own an app (${shown}): transfer it to another developer or delete it first, then delete your account.`
        : said`You own ${ownedApps.length} apps (${shown}): transfer them to another developer or delete them first, then delete your account.`,
    );
  }
}
