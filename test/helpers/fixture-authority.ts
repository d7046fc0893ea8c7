import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './run-cli.ts';

/** The store's own authority as an earlier version kept it in the data directory (scripts/make-authority-fixture.sh). */
export const FIXTURE_AUTHORITY = {
  certificate: path.join(ROOT, 'test', 'fixtures', 'authority', 'authority.crt'),
  key: path.join(ROOT, 'test', 'fixtures', 'authority', 'authority.key'),
} as const;

/**
 * Puts the fixture authority where a store looks for the files an earlier version kept
 * (`<data dir>/ca/`), unless something is there: a store without an authority imports it on its
 * first start instead of generating an RSA 4,096 key (0.5 to 1.5 s of CPU each time). A store
 * that has an authority ignores the files.
 */
export function placeFixtureAuthority(dataDir: string): void {
  const target = path.join(dataDir, 'ca');
  if (fs.existsSync(target)) return;
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(FIXTURE_AUTHORITY.certificate, path.join(target, 'authority.crt'));
  fs.copyFileSync(FIXTURE_AUTHORITY.key, path.join(target, 'authority.key'));
}
