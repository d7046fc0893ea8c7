import { said } from '../../i18n/said.ts';
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { crlRegression, loadTrust } from './trust.ts';
import type { Trust } from './trust.ts';

/** The texts the trust is made of: the authorities (PEM) and the revocation lists (PEM), as they are now. */
export interface TrustInputs {
  readonly authorityPem: string;
  readonly crlPem: string | null;
}

/** What the trust tells the operator (the server logs it). */
export interface TrustReports {
  /** A usable trust with something to fix (a CRL past its next update, one from another authority). */
  warn(message: string): void;
  /** New inputs that could not be used: the previous trust stays in force. */
  refused(error: unknown): void;
  /** New inputs taken into use (not reported for the first). */
  changed(): void;
}

const digestOf = (inputs: TrustInputs): string =>
  createHash('sha256')
    .update(inputs.authorityPem)
    .update('\0')
    .update(inputs.crlPem ?? '')
    .digest('hex');

/**
 * The trust, always as its sources are now: each use reads the inputs (small files, one database
 * row) and parses them again only when they changed. New inputs that cannot be used (a damaged
 * CRL, one signed by no configured authority, a file halfway through being written, a CRL older
 * than the one in force) are refused whole and reported, and the last good trust stays in force;
 * before any good trust, the refusal is the answer.
 */
export class TrustSource {
  private good: { digest: string; trust: Trust } | null = null;
  /** New inputs refused since the start, each bad version once (the metrics). */
  refusals = 0;
  private lastRefused: string | null = null;

  constructor(
    private readonly read: () => Promise<TrustInputs>,
    private readonly now: () => Date,
    readonly reports: TrustReports,
  ) {}

  async current(): Promise<Trust> {
    let inputs: TrustInputs;
    try {
      inputs = await this.read();
    } catch (error) {
      return this.keepOrThrow(`unreadable:${error instanceof Error ? error.message : String(error)}`, error);
    }
    const digest = digestOf(inputs);
    if (this.good?.digest === digest) return this.good.trust;
    const warnings: string[] = [];
    let trust: Trust;
    try {
      trust = await loadTrust(inputs.authorityPem, inputs.crlPem, this.now(), (warning) => warnings.push(warning));
    } catch (error) {
      return this.keepOrThrow(digest, error);
    }
    const regression = this.good === null ? null : crlRegression(this.good.trust, trust);
    if (regression !== null)
      return this.keepOrThrow(
        digest,
        new AppError('configuration_error', said`The store's trust is misconfigured: ${regression}.`),
      );
    const first = this.good === null;
    this.good = { digest, trust };
    this.lastRefused = null;
    for (const warning of warnings) this.reports.warn(warning);
    if (!first) this.reports.changed();
    return trust;
  }

  /** Reads the sources now (a file changed, SIGHUP): reports what became of them. */
  async reload(): Promise<void> {
    await this.current().catch(() => undefined);
  }

  private keepOrThrow(key: string, error: unknown): Trust {
    if (this.good === null) throw error;
    // Reported once per bad version of the inputs, not on every use.
    if (this.lastRefused !== key) {
      this.refusals += 1;
      this.reports.refused(error);
    }
    this.lastRefused = key;
    return this.good.trust;
  }
}
