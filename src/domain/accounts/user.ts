import type { AuditEntry } from '../audit/audit.ts';
import type { CredentialLimits } from './token-scopes.ts';
/** A user as the rest of the service sees it: never with its password hash. */
export interface User {
  readonly id: number;
  readonly username: string;
  readonly email: string | null;
  readonly firstName: string;
  readonly lastName: string;
  readonly isAdmin: boolean;
  readonly isActive: boolean;
  /** False for users from an external login: they authenticate with tokens only. */
  readonly hasPassword: boolean;
  /** False after a website sign-up or a change of address until the mailed link is followed. */
  readonly emailVerified: boolean;
  /** Whether the account signs in with a second factor (an authenticator app or a passkey), issue 53. */
  readonly twoFactor?: boolean;
  /** The site language the user last chose (or signed up in): their mails are written in it; null: English. */
  readonly language?: string | null;
  /** Set when the request came with a scoped token: what it may do (`token-scopes.ts`). Absent: everything the account may. */
  readonly limits?: CredentialLimits;
}

/** What storage returns for authentication. */
export interface UserRecord extends User {
  readonly passwordHash: string | null;
}

/** The user without its password hash: what leaves the accounts code. */
export function toUser(record: UserRecord): User {
  const { passwordHash: _hidden, ...user } = record;
  return user;
}

export interface NewUser {
  readonly username: string;
  readonly email: string | null;
  readonly firstName: string;
  readonly lastName: string;
  readonly isAdmin: boolean;
  readonly passwordHash: string | null;
  readonly emailVerified: boolean;
}

/** A link mailed to a user (`account-links.ts`), as stored: only the keyed hash of its secret. */
export interface StoredLink {
  readonly userId: number;
  readonly purpose: string;
  readonly email: string | null;
  readonly expiresAt: Date;
}

export interface StoredSession {
  readonly user: UserRecord;
  readonly csrfTokenHash: string;
  readonly expiresAt: Date;
}

/** What the accounts use cases need from storage. */
export interface AccountStore {
  findUserByUsername(username: string): Promise<UserRecord | null>;
  findUserByTokenHash(lookupHash: string): Promise<UserRecord | null>;
  /** Records that the token was used (at most about once a minute: the account page shows it). */
  markTokenUsed(lookupHash: string, now: Date): Promise<void>;
  /** Keeps the site language the user chose (a preference: not audited). */
  setLanguage(userId: number, language: string): Promise<void>;
  listUsers(): Promise<User[]>;
  /** Null when the name is taken. */
  createUser(user: NewUser, now: Date, audit: AuditEntry): Promise<User | null>;
  setPasswordHash(userId: number, passwordHash: string | null, now: Date, audit: AuditEntry): Promise<void>;
  setActive(userId: number, active: boolean, now: Date, audit: AuditEntry): Promise<void>;
  setAdmin(userId: number, admin: boolean, now: Date, audit: AuditEntry): Promise<void>;
  /** Users whose name or address contains `text` (any case), by name; every user for ''. */
  searchUsers(text: string, limit: number): Promise<User[]>;
  findUserById(userId: number): Promise<UserRecord | null>;
  /** Users whose address is this one, compared without case. */
  findUsersByEmail(email: string): Promise<UserRecord[]>;
  /** Sets the address as confirmed now. */
  setVerifiedEmail(userId: number, email: string, now: Date, audit: AuditEntry): Promise<void>;
  /**
   * Deletes the user with their token, sessions, links, ratings and co-maintainerships (moving
   * the content version when ratings go), unless they own apps: then nothing is deleted and
   * the ids of those apps come back.
   */
  deleteUserUnlessOwner(
    userId: number,
    now: Date,
    audit: AuditEntry,
  ): Promise<{ deleted: boolean; ownedApps: string[] }>;
  insertLink(secretHash: string, link: StoredLink, now: Date): Promise<void>;
  findLink(secretHash: string): Promise<StoredLink | null>;
  /** Deletes and returns the link: of two requests using one link, one gets it. */
  takeLink(secretHash: string): Promise<StoredLink | null>;
  deleteLinks(userId: number, purpose: string): Promise<void>;
  /** Ends every session of the user (a password change or reset). */
  deleteUserSessions(userId: number): Promise<void>;
  findEncryptedToken(userId: number): Promise<string | null>;
  /** Stores a token unless the user has one; false when one was already there. */
  insertTokenIfNone(
    userId: number,
    lookupHash: string,
    encrypted: string,
    now: Date,
    audit: AuditEntry,
  ): Promise<boolean>;
  /** Replaces the user's token (the old one stops working in the same statement). */
  replaceToken(userId: number, lookupHash: string, encrypted: string, now: Date, audit: AuditEntry): Promise<void>;
  createSession(idHash: string, userId: number, csrfTokenHash: string, now: Date, expiresAt: Date): Promise<void>;
  findSession(idHash: string, now: Date): Promise<StoredSession | null>;
  deleteSession(idHash: string): Promise<void>;
}
