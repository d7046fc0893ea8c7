import { DEFAULT_CATEGORY_IDS } from '../../domain/catalog/default-categories.ts';
import { readRelease } from '../../domain/releases/read-release.ts';
import { listCategories } from '../../storage/repositories/category.repository.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { readFileBytes } from '../arguments.ts';
import { withContainer } from '../context.ts';

export const releaseInspectCommand: Command = {
  path: ['release', 'inspect'],
  usage: 'appstore release inspect ARCHIVE.tar.gz [--nightly]',
  summary: 'check an app archive as publishing would; print its app and release data',
  help: `Reads the archive exactly as POST /api/v1/apps/releases will (archive rules, info.xml,
changelogs) and prints the app and release data as JSON, as the listings will show them, or
the refusal (exit 1). --nightly reads it as a nightly (changelog: the Unreleased section).
Categories are checked against this store's; when it has none yet, against the Nextcloud app
store's list. Nothing is stored; no download, no signature check.`,
  async run(args) {
    const nightly = args.includes('--nightly');
    const rest = args.filter((arg) => arg !== '--nightly');
    const [file, ...extra] = rest;
    if (file === undefined || file.startsWith('-') || extra.length > 0) throw new CliError(`expected one ARCHIVE; usage: ${this.usage}`, 2);
    const bytes = readFileBytes(file);
    const stored = await withContainer(async (container) => (await listCategories(container.database.db)).map((c) => c.id));
    if (stored.length === 0) console.error('appstore: this store has no categories yet; checking against the Nextcloud app store list');
    const candidate = await readRelease(bytes, { nightly, validCategories: new Set(stored.length > 0 ? stored : DEFAULT_CATEGORY_IDS) });
    console.log(JSON.stringify(candidate, null, 2));
    return 0;
  },
};
