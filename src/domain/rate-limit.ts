import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import { AppError } from '../errors.ts';

export interface RateLimitRule {
  /** Stable name of the counter (stored with each hit). */
  readonly bucket: string;
  readonly limit: number;
  readonly windowMs: number;
  /** What the client is told when the limit is reached. */
  readonly what: Said;
}

/** The limits of contract §8; every node shares the counters. Sign-in limits are settings (`signInRules`). */
export const RATE_LIMITS = {
  // Ratings and reports per user (issue 54; appstore#1593: one account rated almost every app in a day).
  ratings: {
    bucket: 'rating-saved',
    limit: 20,
    windowMs: 86_400_000,
    what: said`Too many ratings from this user today`,
  },
  reports: {
    bucket: 'rating-report',
    limit: 20,
    windowMs: 86_400_000,
    what: said`Too many reports from this user today`,
  },
  newToken: { bucket: 'token-new', limit: 30, windowMs: 60_000, what: said`Too many new tokens for this user` },
  scopedToken: {
    bucket: 'token-scoped',
    limit: 100,
    windowMs: 3_600_000,
    what: said`Too many tokens made by this user`,
  },
  secondFactor: {
    bucket: 'second-factor',
    limit: 10,
    windowMs: 15 * 60_000,
    what: said`Too many second-factor attempts for this account`,
  },
  trustedPublishing: {
    bucket: 'trusted-publishing',
    limit: 60,
    windowMs: 60_000,
    what: said`Too many trusted publishing exchanges from this address`,
  },
  register: {
    bucket: 'app-register',
    limit: 100,
    windowMs: 86_400_000,
    what: said`Too many app registrations for this user`,
  },
  certificate: {
    bucket: 'certificate-request',
    limit: 100,
    windowMs: 86_400_000,
    what: said`Too many certificate requests for this user`,
  },
  publish: {
    bucket: 'release-publish',
    limit: 100,
    windowMs: 86_400_000,
    what: said`Too many release uploads for this user`,
  },
  // The website's self-service accounts (docs/security.md): each of these sends a mail.
  signUp: { bucket: 'signup-address', limit: 10, windowMs: 3_600_000, what: said`Too many sign-ups from your address` },
  resetPerAddress: {
    bucket: 'reset-address',
    limit: 10,
    windowMs: 3_600_000,
    what: said`Too many password resets asked from your address`,
  },
  resetPerEmail: {
    bucket: 'reset-email',
    limit: 3,
    windowMs: 3_600_000,
    what: said`Too many password resets asked for this address`,
  },
  verificationMails: {
    bucket: 'verify-mail-user',
    limit: 5,
    windowMs: 3_600_000,
    what: said`Too many confirmation mails for this account`,
  },
  // External login (docs/external-login.md): each start keeps a flow for ten minutes.
  externalLogin: {
    bucket: 'external-login-address',
    limit: 60,
    windowMs: 3_600_000,
    what: said`Too many external sign-ins begun from your address`,
  },
  // Whoever asks, from wherever: mails beyond this to one address in an hour are held back (not sent).
  mailsPerRecipient: {
    bucket: 'mail-recipient',
    limit: 5,
    windowMs: 3_600_000,
    what: said`Too many mails to this address`,
  },
} as const satisfies Record<string, RateLimitRule>;

/** How many failed sign-ins are tolerated, within one window (settings; docs/security.md). */
export interface SignInLimits {
  /** One username from one address (10). */
  readonly perUserAndAddress: number;
  /** One username from addresses it has not signed in from (50). */
  readonly perUser: number;
  /** One address, for usernames that have not signed in from it (50); also invalid tokens from it. */
  readonly perAddress: number;
  readonly windowMs: number;
}

/** A successful sign-in makes its address known for the username this long. */
const KNOWN_ADDRESS_MS = 30 * 86_400_000;
/** No rule looks further back than this (sign-in windows are at most 7 days): older hits may go. */
export const LONGEST_WINDOW_MS = KNOWN_ADDRESS_MS;

export interface SignInRules {
  readonly perUserAndAddress: RateLimitRule;
  readonly perUser: RateLimitRule;
  readonly perAddress: RateLimitRule;
  readonly invalidTokensPerAddress: RateLimitRule;
  /** Subject `username address`: counted once per successful sign-in, never limits by itself. */
  readonly knownAddress: RateLimitRule;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perUserAndAddress: 10,
  perUser: 50,
  perAddress: 50,
  windowMs: 15 * 60_000,
};

export function signInRules(limits: SignInLimits): SignInRules {
  const { windowMs } = limits;
  return {
    perUserAndAddress: {
      bucket: 'auth-failed-user-address',
      limit: limits.perUserAndAddress,
      windowMs,
      what: said`Too many failed sign-ins for this user from your address`,
    },
    perUser: {
      bucket: 'auth-failed-user',
      limit: limits.perUser,
      windowMs,
      what: said`Too many failed sign-ins for this user`,
    },
    perAddress: {
      bucket: 'auth-failed-address',
      limit: limits.perAddress,
      windowMs,
      what: said`Too many failed sign-ins from your address`,
    },
    invalidTokensPerAddress: {
      bucket: 'auth-failed-token-address',
      limit: limits.perAddress,
      windowMs,
      what: said`Too many invalid tokens from your address`,
    },
    knownAddress: {
      bucket: 'auth-known-address',
      limit: Number.MAX_SAFE_INTEGER,
      windowMs: KNOWN_ADDRESS_MS,
      what: said`Sign-ins`,
    },
  };
}

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

  private within(rule: RateLimitRule, subject: string, now: Date): Promise<{ count: number; oldest: Date | null }> {
    return this.store.countSince(rule.bucket, subject, new Date(now.getTime() - rule.windowMs));
  }

  /** The rate_limited refusal (with the seconds to wait) when the subject has used up the rule, else null. */
  async exceeded(rule: RateLimitRule, subject: string): Promise<AppError | null> {
    const now = this.now();
    const { count, oldest } = await this.within(rule, subject, now);
    if (count < rule.limit) return null;
    const freeAt = (oldest ?? now).getTime() + rule.windowMs;
    const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
    return new AppError(
      'rate_limited',
      said`${rule.what}: at most ${rule.limit} in ${describeWindow(rule.windowMs)}. Try again in ${retryAfter} s.`,
      undefined,
      retryAfter,
    );
  }

  /** Throws rate_limited when the subject has used up the rule. */
  async check(rule: RateLimitRule, subject: string): Promise<void> {
    const refusal = await this.exceeded(rule, subject);
    if (refusal !== null) throw refusal;
  }

  /** Whether the subject has any hit within the rule's window. */
  async seen(rule: RateLimitRule, subject: string): Promise<boolean> {
    return (await this.within(rule, subject, this.now())).count > 0;
  }

  async hit(rule: RateLimitRule, subject: string): Promise<void> {
    const now = this.now();
    await this.store.record(rule.bucket, subject, now, new Date(now.getTime() - rule.windowMs));
  }

  /** Records this use as the subject's only one (a "last seen" marker: one row, however often). */
  async mark(rule: RateLimitRule, subject: string): Promise<void> {
    const now = this.now();
    await this.store.record(rule.bucket, subject, now, now);
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

function describeWindow(ms: number): Said {
  if (ms % 86_400_000 === 0) return ms === 86_400_000 ? said`a day` : said`${ms / 86_400_000} days`;
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? said`an hour` : said`${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? said`a minute` : said`${ms / 60_000} minutes`;
  return said`${Math.ceil(ms / 1000)} seconds`;
}
