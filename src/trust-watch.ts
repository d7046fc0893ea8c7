import fs from 'node:fs';
import type { Config } from './config/config.ts';
import type { TrustSource } from './domain/certificates/trust-source.ts';

/** How often the authority and CRL files are looked at (their modification time and size). */
const WATCH_INTERVAL_MS = 2000;

/**
 * Re-reads the trust when APPSTORE_CA_CERT or APPSTORE_CRL changes on disk, and on SIGHUP (which
 * also re-reads the store's own authority from the database). Every use reads the sources anyway:
 * this makes a bad new file show in the log at once, not at the next registration or publish.
 * Returns the function that stops watching.
 */
export function watchTrustFiles(config: Config, source: TrustSource, log: (message: string) => void): () => void {
  const files = [config.caCertFile, config.crlFile].filter((file): file is string => file !== null);
  const onChange = (current: fs.Stats, previous: fs.Stats): void => {
    if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) void source.reload();
  };
  for (const file of files) fs.watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, onChange);
  const onHangUp = (): void => {
    log('SIGHUP: reading the authorities and revocation lists again');
    void source.reload();
  };
  process.on('SIGHUP', onHangUp);
  return () => {
    for (const file of files) fs.unwatchFile(file, onChange);
    process.off('SIGHUP', onHangUp);
  };
}
