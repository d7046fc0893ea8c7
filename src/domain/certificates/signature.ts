import { said } from '../../i18n/said.ts';
import { constants, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { isBase64 } from '../encodings.ts';

/**
 * Decodes a base64 signature as publishing tools send it: `openssl base64` wraps at 64 columns,
 * some tools put spaces in; whitespace is ignored, anything else outside base64 is refused.
 */
export function decodeSignature(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!isBase64(compact, false)) {
    throw new AppError(
      'invalid_signature',
      said`The signature is not base64: send the output of \`openssl dgst -sha512 -sign KEY | openssl base64\`.`,
    );
  }
  return Buffer.from(compact, 'base64');
}

/** RSA (PKCS #1 v1.5) with SHA-512 over the exact bytes. */
export function isValidSignature(data: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
  try {
    return verify('sha512', data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false;
  }
}
