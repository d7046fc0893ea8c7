import { AppError } from '../errors.ts';

export interface RateLimitRule {
  /** Stable name of the counter (stored with each hit). */
  readonly bucket: string;
  readonly limit: number;
  readonly windowMs: number;
  /** What the client is told when the limit is reached. */
  readonly what: string;
}

/** The limits of contract §8 and of failed authentication; every node shares the counters. */
export const RATE_LIMITS = {
  failedAuthPerUser: { bucket: 'auth-failed-user', limit: 10, windowMs: 15 * 60_000, what: 'Too many failed sign-ins for this user' },
  failedAuthPerAddress: { bucket: 'auth-failed-address', limit: 50, windowMs: 15 * 60_000, what: 'Too many failed sign-ins from this address' },
  newToken: { bucket: 'token-new', limit: 30, windowMs: 60_000, what: 'Too many new tokens for this user' },
  register: { bucket: 'app-register', limit: 100, windowMs: 86_400_000, what: 'Too many app registrations for this user' },
  publish: { bucket: 'release-publish', limit: 100, windowMs: 86_400_000, what: 'Too many release uploads for this user' },
} as const satisfies Record<string, RateLimitRule>;

export interface RateLimitStore {
  /** Hits of the bucket and subject after `since` (a hit exactly a window old has expired), and the oldest of them. */
  countSince(bucket: string, subject: string, since: Date): Promise<{ count: number; oldest: Date | null }>;
  /** Records a hit, dropping this subject's hits at or before `pruneBefore`. */
  record(bucket: string, subject: string, at: Date, pruneBefore: Date): Promise<void>;
  clear(bucket: string, subject: string): Promise<void>;
}

/** Sliding-window limits over a shared store, on an injectable clock. */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly now: () => Date,
  ) {}

  /** Throws rate_limited (with the seconds to wait) when the subject has used up the rule. */
  async check(rule: RateLimitRule, subject: string): Promise<void> {
    const now = this.now();
    const { count, oldest } = await this.store.countSince(rule.bucket, subject, new Date(now.getTime() - rule.windowMs));
    if (count < rule.limit) return;
    const freeAt = (oldest ?? now).getTime() + rule.windowMs;
    const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
    throw new AppError('rate_limited', `${rule.what}: at most ${rule.limit} in ${describeWindow(rule.windowMs)}. Try again in ${retryAfter} s.`, undefined, retryAfter);
  }

  async hit(rule: RateLimitRule, subject: string): Promise<void> {
    const now = this.now();
    await this.store.record(rule.bucket, subject, now, new Date(now.getTime() - rule.windowMs));
  }

  /** Checks, then counts this use: for limits on successful actions. */
  async consume(rule: RateLimitRule, subject: string): Promise<void> {
    await this.check(rule, subject);
    await this.hit(rule, subject);
  }

  reset(rule: RateLimitRule, subject: string): Promise<void> {
    return this.store.clear(rule.bucket, subject);
  }
}

function describeWindow(ms: number): string {
  if (ms % 86_400_000 === 0) return ms === 86_400_000 ? 'a day' : `${ms / 86_400_000} days`;
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'an hour' : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? 'a minute' : `${ms / 60_000} minutes`;
  return `${Math.ceil(ms / 1000)} seconds`;
}
