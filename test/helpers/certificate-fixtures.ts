import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './run-cli.ts';

/** test/fixtures/certificates, made by scripts/make-certificate-fixtures.sh. */
export const CERTS = path.join(ROOT, 'test', 'fixtures', 'certificates');
export const certFile = (name: string): string => path.join(CERTS, name);
export const readCert = (name: string): string => fs.readFileSync(certFile(name), 'utf8');
/** Keys the store refuses (scripts/make-weak-key-fixtures.sh): rsa-768, rsa-1024, rsa-e3 (.key .csr .crt .sig), rsa-pss (.key .csr). */
export const weakKeyFile = (name: string): string => path.join(ROOT, 'test', 'fixtures', 'weak-keys', name);

/** The real data corpus beside the project (never copied into it); null when it is absent. */
export const REALDATA = ((): string | null => {
  const dir = process.env.APPSTORE_REALDATA_DIR ?? path.join(ROOT, '..', 'shared', 'realdata');
  return fs.existsSync(dir) ? dir : null;
})();

/**
 * The skip option of each real-data test: tests (not their suites) are skipped, so that the
 * runner's closing summary counts them as skipped.
 */
export const REALDATA_SKIP: string | false =
  REALDATA === null ? 'skipped: ../shared/realdata is absent (set APPSTORE_REALDATA_DIR)' : false;
