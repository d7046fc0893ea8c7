import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with scrypt (memory-hard): `scrypt$N$r$p$salt$hash`, base64 parts. A hash
 * names its own cost, so hashes made at another cost still verify.
 * The default work factor, N = 2^15 with r = 8, needs 32 MiB and about 50 ms per check on this
 * kind of machine (APPSTORE_PASSWORD_COST changes the exponent).
 */
export const DEFAULT_PASSWORD_COST = 15;
/** The exponents APPSTORE_PASSWORD_COST accepts: below 14 is for test suites only (fast to guess). */
export const PASSWORD_COST_RANGE = { min: 10, max: 17, advised: 14 } as const;
const KEY_LENGTH = 32;

interface Cost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes new passwords at one cost (2^exponent), and checks passwords against stored hashes. */
export class PasswordHasher {
  private readonly cost: Cost;
  private decoy: Promise<string> | undefined;

  constructor(exponent: number = DEFAULT_PASSWORD_COST) {
    if (!Number.isInteger(exponent) || exponent < PASSWORD_COST_RANGE.min || exponent > PASSWORD_COST_RANGE.max) {
      throw new RangeError(
        `a password cost is a whole number from ${PASSWORD_COST_RANGE.min} to ${PASSWORD_COST_RANGE.max}`,
      );
    }
    this.cost = { N: 2 ** exponent, r: 8, p: 1 };
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.cost);
    return ['scrypt', this.cost.N, this.cost.r, this.cost.p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  /** Constant-time check, at the cost the stored hash names; false for any malformed stored hash. */
  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, key] = stored.split('$');
    const cost = { N: Number(n), r: Number(r), p: Number(p) };
    if (
      scheme !== 'scrypt' ||
      salt === undefined ||
      key === undefined ||
      !Object.values(cost).every(Number.isSafeInteger)
    )
      return false;
    const expected = Buffer.from(key, 'base64');
    const actual = await derive(password, Buffer.from(salt, 'base64'), cost);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /**
   * A hash that matches no password, at this hasher's cost: checked against when the user does
   * not exist, so that an unknown name and a wrong password take the same time (as long as the
   * accounts' hashes were made at this cost: docs/security.md).
   */
  decoyHash(): Promise<string> {
    this.decoy ??= this.hash(randomBytes(16).toString('hex'));
    return this.decoy;
  }
}
