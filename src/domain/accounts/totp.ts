import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238, over HOTP of RFC 4226) as authenticator apps make
 * them: HMAC-SHA1, 30-second steps, 6 digits. A code is accepted for the step before and after
 * the current one (clock drift), and never twice: the caller keeps the last step used.
 */
export const STEP_SECONDS = 30;
export const DIGITS = 6;
/** Steps either side of now that are accepted. */
export const DRIFT_STEPS = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation). */
export function newTotpSecret(): Buffer {
  return randomBytes(20);
}

/** The code of one step (RFC 4226 §5.3: dynamic truncation). */
export function hotp(secret: Buffer, counter: number, digits = DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export function stepAt(time: Date): number {
  return Math.floor(time.getTime() / 1000 / STEP_SECONDS);
}

/** The step whose code `code` is, within the drift of `time`, and after `lastStep`; null when none. */
export function matchingStep(secret: Buffer, code: string, time: Date, lastStep: number): number | null {
  const typed = code.replace(/\s+/g, '');
  if (!/^[0-9]{6}$/.test(typed)) return null;
  const now = stepAt(time);
  let found: number | null = null;
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    // Every candidate is compared (constant work), and only steps after the last one used count.
    const same = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(typed));
    if (same && step > lastStep && found === null) found = step;
  }
  return found;
}

/** The otpauth:// URI authenticator apps read (from a QR code or a link). */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const query = new URLSearchParams({
    secret: base32(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(DIGITS),
    period: String(STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}
