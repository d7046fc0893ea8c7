import { X509Certificate } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import type { SecretKeys } from '../accounts/secret-key.ts';
import { seal, unseal } from '../accounts/token-codec.ts';
import { generateAuthority, readAuthorityFiles } from '../certificates/certificate-authority.ts';
import type { AuthorityFiles, AuthorityMaterial } from '../certificates/certificate-authority.ts';

/**
 * What every node of one store shares through the database (docs/operations.md, "Several
 * nodes"): which secret key the store runs with, recorded as a one-way fingerprint, and the
 * store's own certificate authority, whose private key is sealed under that secret key.
 */
export interface StoredAuthority {
  readonly certificatePem: string;
  /** The PKCS #8 key, sealed (AES-256-GCM) under the secret key's authority key. */
  readonly sealedKey: string;
  /** Earlier authorities (PEM, concatenated): still trusted, no longer issuing. */
  readonly retiredPem: string;
}

export interface IdentityStore {
  /** Records the fingerprint unless one is recorded; returns the recorded one. */
  claimFingerprint(fingerprint: string, now: Date): Promise<string>;
  /** The fingerprint recorded now (null: none yet). */
  readFingerprint(): Promise<string | null>;
  readAuthority(): Promise<StoredAuthority | null>;
  /** Stores the authority unless one is stored (another node may have been first): false then. */
  storeAuthorityIfNone(authority: StoredAuthority, now: Date, audit: AuditEntry): Promise<boolean>;
  /** Replaces the authority stored as `current` (false when another node changed it first). */
  replaceAuthority(current: string, authority: StoredAuthority, now: Date, audit: AuditEntry): Promise<boolean>;
}

const KEY_CONTEXT = 'appstore authority key';

/** What the audit log says of an authority: its subject, serial and fingerprint. */
function describe(certificatePem: string): { subject: string; serial: string; fingerprint: string } {
  const certificate = new X509Certificate(certificatePem);
  return {
    subject: certificate.subject.replace(/\n/g, ', '),
    serial: certificate.serialNumber.toLowerCase(),
    fingerprint: certificate.fingerprint256.replace(/:/g, '').toLowerCase(),
  };
}

/**
 * Refuses to go on when the database was set up with another secret key: tokens and sessions
 * made by the other nodes would not work here, and this node's would not work there.
 */
export async function checkSecretKey(
  store: IdentityStore,
  keys: SecretKeys,
  keyFile: string,
  now: Date,
): Promise<void> {
  const recorded = await store.claimFingerprint(keys.fingerprint, now);
  if (recorded === keys.fingerprint) return;
  throw new AppError(
    'configuration_error',
    `The secret key in ${keyFile} is not the one this database was set up with (its fingerprint is ${keys.fingerprint}, the database expects ${recorded}). ` +
      'Every node of one store needs the same key: copy the key file of a running node here and point APPSTORE_SECRET_KEY_FILE at it. ' +
      'To change the key of a store, run `appstore secret-key rotate` (docs/operations.md).',
  );
}

/** Seals an authority's key for the database. */
export function sealAuthority(material: AuthorityMaterial, keys: SecretKeys, retiredPem: string): StoredAuthority {
  return {
    certificatePem: material.certificatePem,
    sealedKey: seal(keys.authorityKey, Buffer.from(material.keyPem, 'utf8'), KEY_CONTEXT),
    retiredPem,
  };
}

export function unsealAuthority(stored: StoredAuthority, keys: SecretKeys): AuthorityMaterial {
  const key = unseal(keys.authorityKey, stored.sealedKey, KEY_CONTEXT);
  if (key === null) {
    throw new AppError(
      'configuration_error',
      "The store's authority key in the database cannot be opened with this node's secret key (APPSTORE_SECRET_KEY_FILE).",
    );
  }
  return { certificatePem: stored.certificatePem, keyPem: key.toString('utf8') };
}

export type AuthorityOrigin = 'existing' | 'created' | 'imported';

/**
 * Makes sure the store has its own authority in the database: the one already there, else the
 * one an earlier version kept in the data directory (imported), else a new one. Several nodes
 * starting at once end with one authority: the first stored wins.
 */
export async function ensureOwnAuthority(
  store: IdentityStore,
  keys: SecretKeys,
  legacy: AuthorityFiles,
  now: Date,
  acting: Acting,
): Promise<AuthorityOrigin> {
  if ((await store.readAuthority()) !== null) return 'existing';
  const fromFiles = readAuthorityFiles(legacy);
  const material = fromFiles ?? (await generateAuthority(now));
  const audit = auditEntry(acting, 'authority.created', {
    details: { ...describe(material.certificatePem), imported: fromFiles !== null },
  });
  const stored = await store.storeAuthorityIfNone(sealAuthority(material, keys, ''), now, audit);
  if (!stored) return 'existing';
  return fromFiles === null ? 'created' : 'imported';
}

const noAuthority = (): AppError =>
  new AppError('authority_unavailable', 'The store has no certificate authority yet: run `appstore ca init`.');

/** The authority that issues certificates now, with its key. */
export async function loadOwnAuthority(store: IdentityStore, keys: SecretKeys): Promise<AuthorityMaterial> {
  const stored = await store.readAuthority();
  if (stored === null) throw noAuthority();
  return unsealAuthority(stored, keys);
}

/** Every authority of the store that app certificates may chain to (PEM): the current one first. */
export async function trustedOwnCertificates(store: IdentityStore): Promise<string> {
  const stored = await store.readAuthority();
  if (stored === null) throw noAuthority();
  return stored.certificatePem + stored.retiredPem;
}

/**
 * A new authority issues from now on; the current one is retired but still trusted, so the
 * certificates it issued keep registering and publishing until they are revoked or expire.
 */
export async function rotateOwnAuthority(
  store: IdentityStore,
  keys: SecretKeys,
  now: Date,
  acting: Acting,
): Promise<{ retired: string; current: string }> {
  const stored = await store.readAuthority();
  if (stored === null) throw noAuthority();
  const next = await generateAuthority(now);
  const audit = auditEntry(acting, 'authority.rotated', {
    details: { ...describe(next.certificatePem), retiredFingerprint: describe(stored.certificatePem).fingerprint },
  });
  const replaced = await store.replaceAuthority(
    stored.certificatePem,
    sealAuthority(next, keys, stored.certificatePem + stored.retiredPem),
    now,
    audit,
  );
  if (!replaced)
    throw new AppError(
      'conflict',
      'The authority was changed by another process meanwhile: nothing done; run the command again.',
    );
  return {
    retired: new X509Certificate(stored.certificatePem).subject,
    current: new X509Certificate(next.certificatePem).subject,
  };
}
