import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAdmin } from './authorization.ts';
import type { PasswordHasher } from './password-hash.ts';
import { checkNewPassword } from './password-rules.ts';
import { toUser } from './user.ts';
import type { AccountStore, User } from './user.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9_.@+-]{1,150}$/;

export interface UserDeps {
  readonly store: AccountStore;
  readonly now: () => Date;
  readonly passwords: PasswordHasher;
}

export interface AddUserInput {
  readonly username: string;
  readonly email?: string | null;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly isAdmin?: boolean;
  /** Null: an account without a password (token authentication only). */
  readonly password: string | null;
  /**
   * The password's strength: checked here (the default), or not: an operator waived it
   * (`--allow-weak-password`), or the caller checked it already (sign-up, before its limit counts).
   */
  readonly strength?: 'check' | 'waived' | 'checked';
  /** An operator vouches for the address they give (true); a website sign-up does not. */
  readonly emailVerified?: boolean;
}

/** A username a person chose on the website: the rule, said at the field. */
export function checkChosenUsername(username: string): void {
  if (!USERNAME_PATTERN.test(username)) {
    const rule = said`use 1 to 150 Latin letters (a–z, A–Z), digits and _ . @ + -`;
    throw new AppError('invalid_user', said`Invalid username: ${rule}.`, { username: [rule] });
  }
}

/** A username someone chose is taken: said at the field (names are public). */
export function usernameTaken(username: string): AppError {
  return new AppError('user_exists', said`The username '${username}' is taken: choose another.`, {
    username: [said`is taken`],
  });
}

/** A plausible address: something@domain, without spaces, at most 254 characters. */
export function checkEmailAddress(email: string): void {
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new AppError('invalid_user', said`'${email.slice(0, 254)}' is not an e-mail address.`, {
      email: [said`is not an e-mail address (name@example.com)`],
    });
  }
}

/** An administrator (or the command line) creates an account. */
export async function addUser(input: AddUserInput, acting: Acting, deps: UserDeps): Promise<User> {
  requireAdmin(acting, said`create accounts.`);
  return createAccount(input, acting, deps);
}

/** Creates an account, whoever asks: `addUser` for administrators, the website's sign-up for visitors. */
export async function createAccount(input: AddUserInput, acting: Acting, deps: UserDeps): Promise<User> {
  if (!USERNAME_PATTERN.test(input.username)) {
    throw new AppError(
      'invalid_user',
      said`'${input.username.slice(0, 160)}' is not a valid username: 1 to 150 letters, digits and _ . @ + -`,
    );
  }
  const email = input.email?.trim() || null;
  if (email !== null) checkEmailAddress(email);
  if (input.password !== null && input.strength !== 'checked')
    await checkNewPassword(
      input.password,
      [input.username, email ?? ''],
      input.strength === 'waived' ? 'waived' : 'required',
    );
  const user = await deps.store.createUser(
    {
      username: input.username,
      email,
      firstName: input.firstName?.trim() ?? '',
      lastName: input.lastName?.trim() ?? '',
      isAdmin: input.isAdmin ?? false,
      passwordHash: input.password === null ? null : await deps.passwords.hash(input.password),
      emailVerified: input.emailVerified ?? true,
    },
    deps.now(),
    auditEntry(acting, 'user.created', {
      subjectUser: input.username,
      details: { admin: input.isAdmin ?? false, password: input.password !== null },
    }),
  );
  if (user === null) {
    // Names are the same in any case (issue 49): say which account has it when it is written otherwise.
    const existing = (await deps.store.findUserByUsername(input.username))?.username ?? input.username;
    const named =
      existing === input.username
        ? `'${input.username}'`
        : `'${existing}' (the same name as '${input.username}': names are the same in any case)`;
    throw new AppError('user_exists', said`A user named ${named} already exists.`, {
      username: [said`is taken: choose another name`],
    });
  }
  return user;
}

/** Every user, ordered by name (the command line's `user list`). */
export function listUsers(acting: Acting, deps: Pick<UserDeps, 'store'>): Promise<User[]> {
  requireAdmin(acting, said`list accounts.`);
  return deps.store.listUsers();
}

/** The administrators' user search: name or address containing `text`, at most `limit`. */
export function searchUsers(
  text: string,
  limit: number,
  acting: Acting,
  deps: Pick<UserDeps, 'store'>,
): Promise<User[]> {
  requireAdmin(acting, said`search accounts.`);
  return deps.store.searchUsers(text.trim().slice(0, 100), limit);
}

export async function findUser(username: string, deps: Pick<UserDeps, 'store'>): Promise<User> {
  const record = await deps.store.findUserByUsername(username);
  if (record === null) throw new AppError('user_not_found', said`There is no user named '${username.slice(0, 160)}'.`);
  return toUser(record);
}

/** An operator sets a user's password: the rule of every new password, unless they waive its strength part. */
export async function setPassword(
  username: string,
  password: string,
  strength: 'required' | 'waived',
  acting: Acting,
  deps: UserDeps,
): Promise<void> {
  requireAdmin(acting, said`set another user's password.`);
  const user = await findUser(username, deps);
  await checkNewPassword(password, [user.username, user.email ?? ''], strength);
  await deps.store.setPasswordHash(
    user.id,
    await deps.passwords.hash(password),
    deps.now(),
    auditEntry(acting, 'user.password_changed', { subjectUser: user.username }),
  );
}

/** Disabling keeps the user's apps and token; a disabled user cannot authenticate at all. */
export async function setActive(username: string, active: boolean, acting: Acting, deps: UserDeps): Promise<User> {
  requireAdmin(acting, active ? said`enable accounts.` : said`disable accounts.`);
  const user = await findUser(username, deps);
  if (!active)
    refuseOwnLockout(
      user,
      acting,
      said`You cannot disable your own account: ask another administrator, or use the command line.`,
    );
  await deps.store.setActive(
    user.id,
    active,
    deps.now(),
    auditEntry(acting, active ? 'user.enabled' : 'user.disabled', { subjectUser: user.username }),
  );
  return { ...user, isActive: active };
}

/** An administrator cannot take their own rights away through the website: another must (or the command line). */
function refuseOwnLockout(user: User, acting: Acting, refusal: Said): void {
  if (acting.actor.kind === 'user' && acting.actor.userId === user.id) throw new AppError('conflict', refusal);
}

/** Grants or takes back administrator rights. */
export async function setAdmin(username: string, admin: boolean, acting: Acting, deps: UserDeps): Promise<User> {
  requireAdmin(acting, said`grant or take back administrator rights.`);
  const user = await findUser(username, deps);
  if (!admin)
    refuseOwnLockout(
      user,
      acting,
      said`You cannot take administrator rights from your own account: ask another administrator, or use the command line.`,
    );
  await deps.store.setAdmin(
    user.id,
    admin,
    deps.now(),
    auditEntry(acting, admin ? 'user.admin_granted' : 'user.admin_revoked', { subjectUser: user.username }),
  );
  return { ...user, isAdmin: admin };
}
