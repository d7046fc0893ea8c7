import type { AuditEntry } from '../audit/audit.ts';
import type { NewUser, User, UserRecord } from './user.ts';

/**
 * A person as an external provider (an OpenID Provider, or GitHub) vouched for them at the end of
 * a sign-in: known by (provider, subject), never by address alone.
 */
export interface ExternalProfile {
  /** The provider's id in the configuration ('github', 'keycloak'). */
  readonly provider: string;
  /** The provider's stable id of the person: the ID token's `sub`, GitHub's numeric user id. */
  readonly subject: string;
  /** The name the person uses there (preferred_username, GitHub login): proposed as the username. */
  readonly username: string | null;
  /** Only an address the provider says is verified; null otherwise. */
  readonly email: string | null;
  readonly firstName: string;
  readonly lastName: string;
  /** What the provider's admin claim says; null when the provider has no admin claim configured. */
  readonly admin: boolean | null;
  /** How the person is known there (login or address), shown on their account page. */
  readonly label: string;
}

/** An identity linked to an account, as its account page shows it. */
export interface LinkedIdentity {
  readonly provider: string;
  readonly label: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date;
}

/** A sign-in under way, as kept between its start and the provider's callback. */
export interface StoredFlow {
  readonly provider: string;
  readonly purpose: FlowPurpose;
  readonly userId: number | null;
  readonly bindingHash: string;
  /** JSON: what the purpose needs (nonce, verifier, next page; or the profile waiting for a username). */
  readonly data: string;
  readonly expiresAt: Date;
}

/** Sign in (or up); link to the signed-in account; a first sign-in waiting for a free username. */
export type FlowPurpose = 'sign-in' | 'link' | 'choose-username';

export interface NewIdentity {
  readonly provider: string;
  readonly subject: string;
  readonly label: string;
  readonly adminFromClaim: boolean;
}

/** What external login needs from storage. */
export interface ExternalIdentityStore {
  /** The account the identity is linked to, with whether its admin rights come from the claim. */
  findUserByIdentity(provider: string, subject: string): Promise<{ user: UserRecord; adminFromClaim: boolean } | null>;
  identitiesOf(userId: number): Promise<LinkedIdentity[]>;
  /** Creates the account and its identity in one step; else says which was taken meanwhile (nothing is created). */
  createUserWithIdentity(
    user: NewUser,
    identity: NewIdentity,
    now: Date,
    audit: AuditEntry,
  ): Promise<User | 'name-taken' | 'identity-taken'>;
  /** 'taken': the identity belongs to an account already, or the user has one of this provider (nothing changes). */
  linkIdentity(userId: number, identity: NewIdentity, now: Date, audit: AuditEntry): Promise<'linked' | 'taken'>;
  /**
   * Disconnects the user's identity of this provider, unless it is their last way to sign in (no
   * password, no other identity of a provider in `usable`): checked in the transaction that
   * deletes it. `adminFromClaim`: the identity's claim had granted the user's administrator rights.
   */
  unlinkIdentity(
    userId: number,
    provider: string,
    usable: readonly string[],
    now: Date,
    audit: AuditEntry,
  ): Promise<{ outcome: 'unlinked' | 'not-linked' | 'last-way-in'; adminFromClaim: boolean }>;
  /** Records a sign-in: the label as the provider now says it, and where the admin rights come from. */
  recordSignIn(provider: string, subject: string, label: string, adminFromClaim: boolean, now: Date): Promise<void>;
  insertFlow(keyHash: string, flow: StoredFlow, now: Date): Promise<void>;
  findFlow(keyHash: string): Promise<StoredFlow | null>;
  /**
   * Deletes and returns the flow: of two callbacks with one state, one gets it. With
   * `bindingHash`, only the flow bound to that browser is taken: another browser's callback
   * leaves it for the one that began it.
   */
  takeFlow(keyHash: string, bindingHash?: string): Promise<StoredFlow | null>;
}
