import { said } from '../../i18n/said.ts';
import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.ts';

/** Keys derived from the store's one secret, each for one purpose. */
export interface SecretKeys {
  /** HMAC key: API tokens are looked up by HMAC(token), never stored in clear. */
  readonly tokenLookup: Buffer;
  /** AES-256-GCM key: the retrievable copy of each token (`POST /api/v1/token` returns it). */
  readonly tokenEncryption: Buffer;
  /** HMAC key: session ids and CSRF tokens are stored as HMACs. */
  readonly session: Buffer;
  /** AES-256-GCM key: the store's own authority's private key, as the database holds it. */
  readonly authorityKey: Buffer;
  /**
   * What the database records of the key (hex): every node sharing the database must derive the
   * same. One-way: it tells nothing of the key or of the keys above.
   */
  readonly fingerprint: string;
}

const KEY_BYTES = 32;

export function deriveKeys(secret: Buffer): SecretKeys {
  const derive = (purpose: string): Buffer =>
    Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `appstore ${purpose}`, KEY_BYTES));
  return {
    tokenLookup: derive('token lookup'),
    tokenEncryption: derive('token encryption'),
    session: derive('session'),
    authorityKey: derive('authority key'),
    fingerprint: derive('key fingerprint').toString('hex').slice(0, 32),
  };
}

/**
 * Reads the secret (64 hex characters) from its file. When the file does not exist and
 * `create` is true, a new random secret is written there, readable by its owner only.
 */
export function loadSecret(file: string, create: boolean): Buffer {
  if (!fs.existsSync(file)) {
    if (!create)
      throw new AppError(
        'configuration_error',
        said`The secret key file ${file} does not exist (APPSTORE_SECRET_KEY_FILE).`,
      );
    createSecretFile(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`);
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64,}$/.test(text)) {
    throw new AppError(
      'configuration_error',
      said`The secret key file ${file} must hold at least 64 hexadecimal characters (make one with \`openssl rand -hex 32\`).`,
    );
  }
  return Buffer.from(text, 'hex');
}

/**
 * Writes `content` to `file` unless it exists, in one step as other processes see it: written
 * beside it first, then linked under its name (which fails if another process made it first:
 * theirs is used). Created and written in place, a second process starting at the same moment
 * could read it empty and refuse to start. Where the file system has no hard links, it is
 * created in place.
 */
function createSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(partial, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(partial, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') createInPlace(file, content);
    else if (code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

function createInPlace(file: string, content: string): void {
  try {
    fs.writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
