import { said } from '../../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import { requireAdmin } from './authorization.ts';
import type { TwoFactorRequirement } from './two-factor-store.ts';
import type { Acting } from '../audit/audit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { SecretKeys } from './secret-key.ts';
import { hmacHex, seal, unseal } from './token-codec.ts';
import { base32, matchingStep, newTotpSecret, otpauthUri } from './totp.ts';
import type { Passkey, TwoFactorStore } from './two-factor-store.ts';
import type { User } from './user.ts';

/**
 * Two-factor sign-in for password accounts (issue 53 §4): an authenticator app (TOTP) and
 * passkeys (WebAuthn), with ten recovery codes made when the first factor is added. A sign-in with
 * the password alone then waits for the second factor; Basic authentication, which cannot carry
 * it, may not change anything (`refuseBasicWrite`).
 */
export interface PasskeyCeremonies {
  registrationOptions(
    user: { readonly id: number; readonly username: string },
    existing: readonly Passkey[],
  ): Promise<{ readonly options: unknown; readonly challenge: string }>;
  /** Throws `not_authenticated` when the authenticator's answer does not verify. */
  verifyRegistration(
    response: unknown,
    challenge: string,
  ): Promise<{
    readonly credentialId: string;
    readonly publicKey: string;
    readonly counter: number;
    readonly transports: readonly string[];
  }>;
  authenticationOptions(
    credentials: readonly Passkey[],
  ): Promise<{ readonly options: unknown; readonly challenge: string }>;
  /** The credential id the answer names (to find its passkey), before verifying. */
  credentialIdOf(response: unknown): string | null;
  verifyAuthentication(response: unknown, challenge: string, passkey: Passkey): Promise<{ readonly counter: number }>;
}

export interface TwoFactorDeps {
  readonly twoFactor: TwoFactorStore;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
  readonly passkeys: PasskeyCeremonies;
  /** The name authenticator apps show (the site's name), formatted when first asked for. */
  readonly issuerName: () => string;
}

export const RECOVERY_CODES = 10;
const TRANSPORTS = new Set(['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card', 'cable']);
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const normalRecovery = (code: string): string => code.trim().toLowerCase().replace(/[\s-]/g, '');
const recoveryHash = (keys: SecretKeys, userId: number, code: string): string =>
  hmacHex(keys.tokenLookup, `recovery:${userId}:${normalRecovery(code)}`);

function freshRecoveryCodes(keys: SecretKeys, userId: number): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  return { codes, hashes: codes.map((code) => recoveryHash(keys, userId, code)) };
}

function requirePassword(user: User): void {
  if (!user.hasPassword)
    throw new AppError(
      'forbidden',
      said`Two-factor sign-in is for accounts with a password: an account made through an external login signs in there, with its own factors.`,
    );
}

const sealed = (deps: TwoFactorDeps, userId: number) => ({
  seal: (secret: Buffer) => seal(deps.keys.tokenEncryption, secret, `totp:${userId}`),
  open: (value: string) => unseal(deps.keys.tokenEncryption, value, `totp:${userId}`),
});

/** Starts adding an authenticator app: a new secret (unconfirmed until a code from it is given). */
export async function startTotp(user: User, deps: TwoFactorDeps): Promise<{ secret: string; uri: string }> {
  requirePassword(user);
  const existing = await deps.twoFactor.totp(user.id);
  if (existing?.confirmed === true)
    throw new AppError('conflict', said`An authenticator app is set up already: remove it first to use another.`);
  const secret = newTotpSecret();
  await deps.twoFactor.startTotp(user.id, sealed(deps, user.id).seal(secret), deps.now());
  return { secret: base32(secret), uri: otpauthUri(secret, deps.issuerName(), user.username) };
}

/** Whether the authenticator app is on, and the secret being set up (the page shows it until confirmed). */
export async function totpStatus(
  user: User,
  deps: TwoFactorDeps,
): Promise<{ readonly on: boolean; readonly pending: { secret: string; uri: string } | null }> {
  const existing = await deps.twoFactor.totp(user.id);
  if (existing === null || existing.confirmed) return { on: existing !== null, pending: null };
  const secret = sealed(deps, user.id).open(existing.sealed);
  return {
    on: false,
    pending:
      secret === null ? null : { secret: base32(secret), uri: otpauthUri(secret, deps.issuerName(), user.username) },
  };
}

/** Confirms the app with a code it shows; the recovery codes (shown once) when this is the account's first factor. */
export async function confirmTotp(user: User, code: string, acting: Acting, deps: TwoFactorDeps): Promise<string[]> {
  await deps.limiter.check(RATE_LIMITS.secondFactor, String(user.id));
  const existing = await deps.twoFactor.totp(user.id);
  if (existing === null || existing.confirmed)
    throw new AppError('conflict', said`There is no authenticator app being set up: start again.`);
  const secret = sealed(deps, user.id).open(existing.sealed);
  const step = secret === null ? null : matchingStep(secret, code, deps.now(), 0);
  if (step === null) {
    await deps.limiter.hit(RATE_LIMITS.secondFactor, String(user.id));
    throw new AppError(
      'invalid_request',
      said`That code is not the one the app shows now: check the phone’s clock, and type the 6 digits.`,
      {
        code: [said`the 6 digits the app shows now`],
      },
    );
  }
  const first = !user.twoFactor;
  const recovery = first ? freshRecoveryCodes(deps.keys, user.id) : { codes: [], hashes: [] };
  await deps.twoFactor.confirmTotp(
    user.id,
    step,
    recovery.hashes,
    deps.now(),
    auditEntry(acting, 'user.two_factor_enabled', { subjectUser: user.username, details: { factor: 'totp' } }),
  );
  return recovery.codes;
}

export async function removeTotp(user: User, acting: Acting, deps: TwoFactorDeps): Promise<void> {
  const audit = auditEntry(acting, 'user.two_factor_removed', {
    subjectUser: user.username,
    details: { factor: 'totp' },
  });
  if (!(await deps.twoFactor.removeTotp(user.id, deps.now(), audit)))
    throw new AppError('not_found', said`No authenticator app is set up.`);
}

export async function renewRecoveryCodes(user: User, acting: Acting, deps: TwoFactorDeps): Promise<string[]> {
  if (user.twoFactor !== true)
    throw new AppError('conflict', said`Recovery codes come with a second factor: add one first.`);
  const recovery = freshRecoveryCodes(deps.keys, user.id);
  await deps.twoFactor.replaceRecoveryCodes(
    user.id,
    recovery.hashes,
    deps.now(),
    auditEntry(acting, 'user.recovery_codes_renewed', { subjectUser: user.username }),
  );
  return recovery.codes;
}

/**
 * The second factor typed at sign-in: a code of the authenticator app (each used once) or a
 * recovery code (each used once, audited). 10 tries in 15 minutes per account.
 */
export async function checkSecondFactor(
  user: User,
  code: string,
  acting: Acting,
  deps: TwoFactorDeps,
): Promise<'totp' | 'recovery'> {
  // Only failures count against the limit: a person who signs in often is never stopped.
  await deps.limiter.check(RATE_LIMITS.secondFactor, String(user.id));
  const totp = await deps.twoFactor.totp(user.id);
  if (totp?.confirmed === true) {
    const secret = sealed(deps, user.id).open(totp.sealed);
    const step = secret === null ? null : matchingStep(secret, code, deps.now(), totp.lastStep);
    if (step !== null && (await deps.twoFactor.useTotpStep(user.id, step))) return 'totp';
  }
  if (normalRecovery(code).length === 10) {
    const used = await deps.twoFactor.useRecoveryCode(
      user.id,
      recoveryHash(deps.keys, user.id, code),
      deps.now(),
      auditEntry(acting, 'user.recovery_code_used', { subjectUser: user.username }),
    );
    if (used) return 'recovery';
  }
  await deps.limiter.hit(RATE_LIMITS.secondFactor, String(user.id));
  throw new AppError(
    'not_authenticated',
    said`That code is wrong or was used already: type the 6 digits your authenticator app shows now, or one of your recovery codes.`,
    { code: [said`wrong or used`] },
  );
}

// Passkeys

export async function passkeyRegistrationOptions(
  user: User,
  deps: TwoFactorDeps,
): Promise<{ options: unknown; challenge: string }> {
  requirePassword(user);
  return deps.passkeys.registrationOptions(user, await deps.twoFactor.passkeys(user.id));
}

/** Adds the passkey the browser made; the recovery codes when it is the account's first factor. */
export async function addPasskey(
  user: User,
  response: unknown,
  challenge: string,
  name: string,
  acting: Acting,
  deps: TwoFactorDeps,
): Promise<string[]> {
  requirePassword(user);
  const verified = await deps.passkeys.verifyRegistration(response, challenge);
  const label = name.trim().slice(0, 100) || 'Passkey';
  const first = !user.twoFactor;
  const recovery = first ? freshRecoveryCodes(deps.keys, user.id) : { codes: [], hashes: [] };
  const added = await deps.twoFactor.addPasskey(
    {
      userId: user.id,
      ...verified,
      // Only the transports WebAuthn defines, a few of them: they are shown back to the browser.
      transports: verified.transports.filter((entry) => TRANSPORTS.has(entry)).slice(0, 6),
      name: label,
    },
    recovery.hashes,
    deps.now(),
    auditEntry(acting, 'user.passkey_added', { subjectUser: user.username, details: { name: label } }),
  );
  if (!added) throw new AppError('conflict', said`This passkey is registered already.`);
  return recovery.codes;
}

export async function removePasskey(user: User, id: number, acting: Acting, deps: TwoFactorDeps): Promise<void> {
  const audit = auditEntry(acting, 'user.passkey_removed', { subjectUser: user.username, details: { passkey: id } });
  if (!(await deps.twoFactor.removePasskey(user.id, id, deps.now(), audit)))
    throw new AppError('not_found', said`You have no such passkey.`);
}

/** Verifies a passkey's answer at sign-in against the user's passkeys; keeps its counter. */
export async function checkPasskey(
  user: User,
  response: unknown,
  challenge: string,
  deps: TwoFactorDeps,
): Promise<void> {
  await deps.limiter.check(RATE_LIMITS.secondFactor, String(user.id));
  const failed = async (error: unknown): Promise<never> => {
    await deps.limiter.hit(RATE_LIMITS.secondFactor, String(user.id));
    throw error;
  };
  const credentialId = deps.passkeys.credentialIdOf(response);
  const passkey = (await deps.twoFactor.passkeys(user.id)).find((entry) => entry.credentialId === credentialId);
  if (passkey === undefined)
    return failed(
      new AppError('not_authenticated', said`That passkey is not one of this account: use another, or a code.`),
    );
  const { counter } = await deps.passkeys.verifyAuthentication(response, challenge, passkey).catch(failed);
  await deps.twoFactor.usePasskey(passkey.id, counter, deps.now());
}

/** Whether an administrator requires a second factor of this user (admins; or admins and app owners). */
export async function secondFactorRequired(
  user: Pick<User, 'id' | 'isAdmin' | 'hasPassword'>,
  deps: { readonly twoFactor: Pick<TwoFactorStore, 'requirement' | 'ownsApps'> },
): Promise<boolean> {
  // An account from an external login cannot add a factor here: its provider has its own.
  if (!user.hasPassword) return false;
  const requirement = await deps.twoFactor.requirement();
  if (requirement === 'none') return false;
  if (user.isAdmin) return true;
  return requirement === 'maintainers' && (await deps.twoFactor.ownsApps(user.id));
}

/**
 * Tokens for an account an administrator requires a second factor of, which has none: refused
 * (the account page says how to add one). A token made then would stand in for the factor.
 */
/** Whether an administrator requires a second factor of this user, and they have none yet. */
export async function lacksRequiredFactor(
  user: Pick<User, 'id' | 'isAdmin' | 'twoFactor' | 'hasPassword'>,
  deps: { readonly twoFactor: Pick<TwoFactorStore, 'requirement' | 'ownsApps'> },
): Promise<boolean> {
  return user.twoFactor !== true && (await secondFactorRequired(user, deps));
}

export async function refuseWithoutRequiredFactor(
  user: Pick<User, 'id' | 'isAdmin' | 'twoFactor' | 'hasPassword'>,
  deps: { readonly twoFactor: Pick<TwoFactorStore, 'requirement' | 'ownsApps'> },
): Promise<void> {
  if (await lacksRequiredFactor(user, deps))
    throw new AppError(
      'forbidden',
      said`An administrator of this store requires a second factor for your account before it gets tokens: add an authenticator app or a passkey on /account/security first.`,
    );
}

/**
 * Basic authentication for a request that changes something: refused for an account with a
 * second factor (Basic cannot carry it), and for one an administrator requires to have one.
 */
export async function refuseBasicWrite(user: User, deps: Pick<TwoFactorDeps, 'twoFactor'>): Promise<void> {
  if (user.twoFactor === true)
    throw new AppError(
      'second_factor_required',
      said`This account signs in with a second factor, which Basic authentication cannot carry: use a token instead (Authorization: Token …), made on the account page (/account/tokens) after signing in.`,
    );
  if (await lacksRequiredFactor(user, deps))
    throw new AppError(
      'second_factor_required',
      said`An administrator of this store requires a second factor for your account: sign in on the website, set one up (/account/security), then use a token (Authorization: Token …) here.`,
    );
}

const REQUIREMENTS: readonly TwoFactorRequirement[] = ['none', 'admins', 'maintainers'];

/** An administrator requires a second factor of admins, or of admins and app owners, or of nobody. */
export async function setTwoFactorRequirement(
  requirement: string,
  acting: Acting,
  deps: Pick<TwoFactorDeps, 'twoFactor' | 'now'>,
): Promise<TwoFactorRequirement> {
  requireAdmin(acting, said`require second factors.`);
  const chosen = REQUIREMENTS.find((entry) => entry === requirement);
  if (chosen === undefined)
    throw new AppError(
      'invalid_request',
      said`Require a second factor of none, admins or maintainers (admins and app owners), not '${requirement.slice(0, 40)}'.`,
      {
        requirement: [said`none, admins or maintainers`],
      },
    );
  await deps.twoFactor.setRequirement(
    chosen,
    deps.now(),
    auditEntry(acting, 'settings.two_factor_required', { details: { requirement: chosen } }),
  );
  return chosen;
}
