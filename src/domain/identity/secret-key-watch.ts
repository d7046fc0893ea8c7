import { AppError } from '../../errors.ts';

/** Seconds a client is told to wait while a node waits for its restart after a key rotation. */
const RESTART_RETRY_AFTER_SECONDS = 30;

/**
 * Whether the secret key this node runs with is still the store's. `appstore secret-key rotate`
 * moves the tokens, the authority key and the recorded fingerprint to a new key while nodes may
 * still run with the old one; such a node would refuse every token (their lookup hashes moved)
 * and could issue new ones under the old key, lost at its restart. So every request that uses
 * the key (a write, a token, a session) asks first, one small read; once the fingerprint has
 * changed, the node refuses them with a clear 503 until it is restarted with the new key.
 */
export class SecretKeyWatch {
  private replaced = false;

  constructor(
    private readonly recorded: () => Promise<string | null>,
    private readonly fingerprint: string,
    /** Told once, when the node finds its key replaced (the server's log). */
    readonly reports: { replaced: () => void } = { replaced: () => undefined },
  ) {}

  /** Throws `restart_needed` once the store's key is another. */
  async check(): Promise<void> {
    if (!this.replaced) {
      const recorded = await this.recorded();
      if (recorded === null || recorded === this.fingerprint) return;
      this.replaced = true;
      this.reports.replaced();
    }
    throw new AppError(
      'restart_needed',
      'This node still runs with the secret key that `appstore secret-key rotate` replaced, so it cannot check tokens, sessions or mailed links now. ' +
        'Its operator restarts it with the new key file (APPSTORE_SECRET_KEY_FILE); nodes already restarted answer. Try again shortly.',
      undefined,
      RESTART_RETRY_AFTER_SECONDS,
    );
  }
}
