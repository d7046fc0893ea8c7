import type { AuditEntry } from '../audit/audit.ts';

/** A passkey (WebAuthn credential) of a user: its id and public key, never anything secret. */
export interface Passkey {
  readonly id: number;
  readonly userId: number;
  /** base64url, as the authenticator gave it. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export type NewPasskey = Omit<Passkey, 'id' | 'createdAt' | 'lastUsedAt'>;

/** Who must have a second factor (store setting `two-factor-required`). */
export type TwoFactorRequirement = 'none' | 'admins' | 'maintainers';

export type ChallengePurpose = 'sign-in' | 'passkey';

export interface PendingChallenge {
  readonly userId: number;
  readonly challenge: string | null;
  readonly next: string;
}

/** What two-factor sign-in keeps (migration 0029). Every write that adds or removes a factor keeps `users.two_factor` right. */
export interface TwoFactorStore {
  totp(
    userId: number,
  ): Promise<{ readonly sealed: string; readonly confirmed: boolean; readonly lastStep: number } | null>;
  /** An unconfirmed secret, replacing an earlier unconfirmed one (never a confirmed one). */
  startTotp(userId: number, sealed: string, now: Date): Promise<void>;
  /** Confirms the secret with the step of its first code; `recovery`: new codes when the account had none. */
  confirmTotp(userId: number, step: number, recovery: readonly string[], now: Date, audit: AuditEntry): Promise<void>;
  /** Records the step used; false when it (or a later one) was used already. */
  useTotpStep(userId: number, step: number): Promise<boolean>;
  removeTotp(userId: number, now: Date, audit: AuditEntry): Promise<boolean>;
  recoveryCodesLeft(userId: number): Promise<number>;
  replaceRecoveryCodes(userId: number, hashes: readonly string[], now: Date, audit: AuditEntry): Promise<void>;
  /** Marks the code used; false when it is unknown or used. */
  useRecoveryCode(userId: number, hash: string, now: Date, audit: AuditEntry): Promise<boolean>;
  passkeys(userId: number): Promise<Passkey[]>;
  /** False when a passkey with this credential id exists already (this account's or another's). */
  addPasskey(passkey: NewPasskey, recovery: readonly string[], now: Date, audit: AuditEntry): Promise<boolean>;
  usePasskey(id: number, counter: number, now: Date): Promise<void>;
  removePasskey(userId: number, id: number, now: Date, audit: AuditEntry): Promise<boolean>;
  createChallenge(
    idHash: string,
    userId: number,
    purpose: ChallengePurpose,
    next: string,
    expiresAt: Date,
    /** The WebAuthn challenge, when it is known at once (a passkey's registration). */
    challenge?: string,
  ): Promise<void>;
  findChallenge(idHash: string, purpose: ChallengePurpose, now: Date): Promise<PendingChallenge | null>;
  setChallenge(idHash: string, challenge: string): Promise<void>;
  deleteChallenge(idHash: string): Promise<void>;
  /** Ends the sign-in under way, and records in the audit log that it was completed with a second factor. */
  finishSignIn(idHash: string, audit: AuditEntry, now: Date): Promise<void>;
  requirement(): Promise<TwoFactorRequirement>;
  setRequirement(requirement: TwoFactorRequirement, now: Date, audit: AuditEntry): Promise<void>;
  /** Whether the user owns an app (the requirement `maintainers`). */
  ownsApps(userId: number): Promise<boolean>;
}
