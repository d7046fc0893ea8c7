import { said } from '../../i18n/said.ts';
import { authenticateWithPassword } from './authenticate.ts';
import { beginSecondFactor } from './second-factor-sign-in.ts';
import type { TwoFactorDeps } from './two-factor.ts';
import { auditEntry, userActing, visitorActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { AppError } from '../../errors.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import { takeLink } from './account-links.ts';
import type { SelfServiceDeps } from './account-links.ts';
import { createAccount, checkChosenUsername, checkEmailAddress, usernameTaken } from './manage-users.ts';
import { checkNewPassword } from './password-rules.ts';
import { openSession } from './sessions.ts';
import type { NewSession } from './sessions.ts';
import { toUser } from './user.ts';
import type { User } from './user.ts';

export interface SignUpInput {
  readonly username: string;
  readonly email: string;
  readonly password: string;
  /** The site language the form was shown in: the account's mails are written in it. */
  readonly language?: string;
}

/**
 * Queues a link confirming `email` for the user (a new account, or a new address for an
 * account), within the account's limit of such mails.
 */
export async function sendVerification(
  user: Pick<User, 'id' | 'username'>,
  email: string,
  isNewAccount: boolean,
  deps: SelfServiceDeps,
): Promise<void> {
  await deps.limiter.consume(RATE_LIMITS.verificationMails, String(user.id));
  await deps.mail.enqueue({ kind: 'verify-email', userId: user.id, email, newAccount: isNewAccount });
}

/**
 * An address that belongs to an account already is not said so on the page (that would tell
 * anyone which addresses have accounts): its owner gets a mail instead, and the page says the
 * same as for a free address.
 */
export async function tellOwnerAddressIsTaken(email: string, deps: SelfServiceDeps): Promise<void> {
  await deps.mail.enqueue({ kind: 'address-taken', email });
}

/**
 * Website sign-up: the account exists at once but signs in only once the mailed link has
 * confirmed its address. Rate-limited per client address; closed when sign-up is by invitation.
 *
 * Whether the address has an account already changes nothing the visitor can see: the account
 * is made either way (a name taken is said, names are public), one mail is queued either way, and
 * the request never looks the address up: the delivery does (a confirmation link, or a note to
 * the address's owner), so both do the same work by construction. A name
 * signed up with someone else's address stays unconfirmed (its owner is never sent a link for it),
 * so a second sign-up with that name answers as it would have for a free address: taken.
 */
export async function signUp(
  input: SignUpInput,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: SelfServiceDeps,
): Promise<void> {
  const clientAddress = origin.address ?? '';
  if (!deps.signUpOpen) {
    throw new AppError(
      'signup_closed',
      said`Sign-up is by invitation only on this store: ask one of its administrators for an account.`,
    );
  }
  const username = input.username.trim();
  const email = input.email.trim();
  checkChosenUsername(username);
  checkEmailAddress(email);
  await checkNewPassword(input.password, [username, email]);
  await deps.limiter.consume(RATE_LIMITS.signUp, clientAddress);
  let user: User;
  try {
    user = await createAccount(
      { username, email, password: input.password, strength: 'checked', emailVerified: false },
      visitorActing(origin.address, origin.requestId),
      deps,
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'user_exists') throw usernameTaken(username);
    throw error;
  }
  // One mail, within the account's limit. Whether the address has another account is not even
  // asked here (issue 49): the delivery, after the answer, decides between a confirmation link
  // and a note to the address's owner, so the request does the same work by construction.
  if (input.language !== undefined && input.language !== 'en') await deps.store.setLanguage(user.id, input.language);
  await deps.limiter.consume(RATE_LIMITS.verificationMails, String(user.id));
  await deps.mail.enqueue({ kind: 'signed-up', userId: user.id, email });
}

/** Follows a confirmation link: the address it was sent to becomes the account's confirmed address. */
export async function verifyEmail(
  secret: string,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: SelfServiceDeps,
): Promise<User> {
  const link = await takeLink(secret, 'verify-email', deps);
  const user = await deps.store.findUserById(link.userId);
  if (user === null || link.email === null)
    throw new AppError('invalid_link', said`This link belongs to an account that no longer exists.`);
  const owners = await deps.store.findUsersByEmail(link.email);
  if (owners.some((owner) => owner.id !== user.id && owner.emailVerified)) {
    throw new AppError(
      'conflict',
      said`This address was confirmed for another account meanwhile, so it cannot be used for this one.`,
    );
  }
  const acting = userActing(user, origin.address, origin.requestId); // the holder of the link acts as its user
  await deps.store.setVerifiedEmail(
    user.id,
    link.email,
    deps.now(),
    // Confirming the address the account already gives (a sign-up's) is no change of address.
    auditEntry(acting, link.email === user.email ? 'user.email_confirmed' : 'user.email_changed', {
      subjectUser: user.username,
      details: { by: 'confirmation link' },
    }),
  );
  return toUser({ ...user, email: link.email, emailVerified: true });
}

/** `a…e@example.com`: enough for the owner to recognise the address, not enough to harvest it. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const shown = local.length <= 2 ? `${local.slice(0, 1)}…` : `${local.slice(0, 1)}…${local.slice(-1)}`;
  return `${shown}${email.slice(at)}`;
}

/**
 * The website's sign-in: as `POST /login`, except that the right password for an account whose
 * address is not confirmed yet mails a new confirmation link (within its limit) and says where,
 * and that an account with a second factor goes on to ask for it (`secondFactor`: the id of the
 * sign-in under way, for its cookie).
 */
export async function signInOnWebsite(
  username: string,
  password: string,
  clientAddress: string,
  next: string,
  deps: SelfServiceDeps & TwoFactorDeps,
): Promise<{ readonly session: NewSession } | { readonly secondFactor: string }> {
  try {
    const user = await authenticateWithPassword(username, password, clientAddress, deps);
    if (user.twoFactor === true) return { secondFactor: await beginSecondFactor(user, next, deps) };
    return { session: await openSession(user, deps) };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'email_not_verified') throw error;
    const record = await deps.store.findUserByUsername(username);
    if (record === null || record.email === null) throw error;
    try {
      await sendVerification(record, record.email, true, deps);
    } catch (mailError) {
      if (!(mailError instanceof AppError) || mailError.code !== 'rate_limited') throw mailError;
      throw new AppError(
        'email_not_verified',
        said`Confirm your e-mail address first: follow the link mailed to ${maskAddress(record.email)} (a new one is mailed at most five times an hour).`,
      );
    }
    throw new AppError(
      'email_not_verified',
      said`Confirm your e-mail address first: a new link is on its way to ${maskAddress(record.email)}.`,
    );
  }
}
