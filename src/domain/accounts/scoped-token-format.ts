import { randomInt } from 'node:crypto';
import zlib from 'node:zlib';
import type { CredentialKind } from './token-scopes.ts';

/**
 * The text of a scoped token (issue 53): a prefix secret scanners can match, 40 random base62
 * characters (about 238 bits), and 6 base62 characters of CRC-32 over the rest, so a scanner can
 * tell a real token from look-alike noise without asking the store:
 *
 *     apst_ + 40 random + 6 checksum   a token a user made (account page, POST /api/v1/tokens)
 *     aptp_ + 40 random + 6 checksum   a token trusted publishing gave a CI job (15 minutes)
 *
 * Pattern: `\bap(st|tp)_[0-9A-Za-z]{46}\b`. The account's unscoped token stays 64 hex characters.
 */
export const TOKEN_PREFIXES: Readonly<Record<CredentialKind, string>> = { personal: 'apst_', publishing: 'aptp_' };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
export const SCOPED_TOKEN_PATTERN = /^ap(st|tp)_[0-9A-Za-z]{46}$/;

function base62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(zlib.crc32(body), CHECKSUM_LENGTH);
}

export function generateScopedToken(kind: CredentialKind): string {
  let body = TOKEN_PREFIXES[kind];
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(62)];
  return body + checksum(body);
}

/** What a presented token looks like: a scoped one (with its kind, and whether its checksum holds), or not. */
export function readScopedToken(token: string): { kind: CredentialKind; checksumValid: boolean } | null {
  const match = SCOPED_TOKEN_PATTERN.exec(token);
  if (match === null) return null;
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return {
    kind: match[1] === 'st' ? 'personal' : 'publishing',
    checksumValid: checksum(body) === token.slice(-CHECKSUM_LENGTH),
  };
}
