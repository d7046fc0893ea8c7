import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CATEGORY_IDS } from '../../src/domain/catalog/default-categories.ts';
import { ROOT } from './run-cli.ts';

/** test/fixtures/{archives,manifests}, made by scripts/make-release-fixtures.sh. */
export const archive = (name: string): Buffer => fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'archives', name));
export const manifest = (name: string): Buffer =>
  fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'manifests', name));
export const archivePath = (name: string): string => path.join(ROOT, 'test', 'fixtures', 'archives', name);

/** The categories a default Nextcloud-like store has. */
export const CATEGORY_IDS: ReadonlySet<string> = new Set(DEFAULT_CATEGORY_IDS);
