import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { SecretKeys } from './secret-key.ts';

/**
 * API tokens: 32 random bytes (256 bits) as 64 hex characters. The database holds only
 * HMAC(token) for look-up and an AES-256-GCM encryption of the token bound to its user, both
 * keyed by the secret kept outside the database.
 */
export function generateToken(): string {
  return randomBytes(32).toString('hex');
}

export function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
}

export function tokenLookupHash(keys: SecretKeys, token: string): string {
  return hmacHex(keys.tokenLookup, token);
}

export function encryptToken(keys: SecretKeys, token: string, userId: number): string {
  return seal(keys.tokenEncryption, Buffer.from(token, 'utf8'), `user:${userId}`);
}

/** Null when the value was not sealed with this key for this user (wrong key, tampering). */
export function decryptToken(keys: SecretKeys, sealed: string, userId: number): string | null {
  return unseal(keys.tokenEncryption, sealed, `user:${userId}`)?.toString('utf8') ?? null;
}

/** AES-256-GCM with a fresh IV, bound to `context` (authenticated, not stored): v1.iv.tag.data in base64. */
export function seal(key: Buffer, plain: Buffer, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
}

/** Null when the value was not sealed with this key for this context (wrong key, tampering). */
export function unseal(key: Buffer, sealed: string, context: string): Buffer | null {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
  } catch {
    return null;
  }
}
