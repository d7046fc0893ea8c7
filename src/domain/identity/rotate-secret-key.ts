import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import type { SecretKeys } from '../accounts/secret-key.ts';
import { decryptToken, encryptToken, tokenLookupHash } from '../accounts/token-codec.ts';
import type { StoredAuthority } from './store-identity.ts';
import { sealAuthority, unsealAuthority } from './store-identity.ts';

/** How a stored token and the stored authority look under the new key (null: the token is dropped). */
export interface KeyRotationPlan {
  token(userId: number, sealed: string): { lookupHash: string; sealed: string } | null;
  authority(stored: StoredAuthority): StoredAuthority;
}

export interface KeyRotationStore {
  /**
   * In one transaction, unless the recorded fingerprint is no longer `from`: rewrites every token
   * and the authority by the plan, ends every session and mailed link (their hashes cannot be
   * recomputed), records `to`. Null when the fingerprint was not `from`.
   */
  rotateKey(
    from: string,
    to: string,
    plan: KeyRotationPlan,
    now: Date,
    audit: AuditEntry,
  ): Promise<{ tokens: number; dropped: number; sessions: number; links: number } | null>;
}

export interface KeyRotationReport {
  readonly tokens: number;
  readonly droppedTokens: number;
  readonly sessions: number;
  readonly links: number;
}

/**
 * Moves the store to a new secret key: API tokens keep working (each is decrypted with the old
 * key and stored again under the new one), the authority's key is sealed again, sessions and
 * mailed links end. Every node must be stopped first and restarted with the new key file.
 */
export async function rotateSecretKey(
  store: KeyRotationStore,
  from: SecretKeys,
  to: SecretKeys,
  now: Date,
  acting: Acting,
): Promise<KeyRotationReport> {
  if (from.fingerprint === to.fingerprint)
    throw new AppError(
      'conflict',
      'The new key is the key in use: make a new one with `openssl rand -hex 32 > new.key`.',
    );
  const plan: KeyRotationPlan = {
    token(userId, sealed) {
      const token = decryptToken(from, sealed, userId);
      return token === null
        ? null
        : { lookupHash: tokenLookupHash(to, token), sealed: encryptToken(to, token, userId) };
    },
    authority: (stored) => sealAuthority(unsealAuthority(stored, from), to, stored.retiredPem),
  };
  const audit = auditEntry(acting, 'secret_key.rotated', { details: { from: from.fingerprint, to: to.fingerprint } });
  const result = await store.rotateKey(from.fingerprint, to.fingerprint, plan, now, audit);
  if (result === null)
    throw new AppError(
      'configuration_error',
      'The database is not set up with the key in APPSTORE_SECRET_KEY_FILE: point it at the key the store runs with now.',
    );
  return { tokens: result.tokens, droppedTokens: result.dropped, sessions: result.sessions, links: result.links };
}
