import { inspectRelease } from '../../domain/releases/inspect-release.ts';
import { flag, positional, readFileBytes } from '../arguments.ts';
import type { Command } from '../command.ts';
import { withContainer } from '../context.ts';

export const releaseInspectCommand: Command = {
  path: ['release', 'inspect'],
  usage: 'appstore release inspect ARCHIVE.tar.gz [--nightly]',
  positionals: ['ARCHIVE'],
  options: { nightly: { type: 'boolean' } },
  summary: 'check an app archive as publishing would; print its app and release data',
  help: `Reads the archive exactly as POST /api/v1/apps/releases will (archive rules, info.xml,
changelogs) and prints the app and release data as JSON, as the listings will show them, or
the refusal (exit 1). --nightly reads it as a nightly (changelog: the Unreleased section).
Categories are checked against this store's; when it has none yet, against the Nextcloud app
store's list. Nothing is stored; no download, no signature check.`,
  async run(input, io) {
    const bytes = readFileBytes(positional(input, 0), io);
    const inspection = await withContainer(io, (container) =>
      inspectRelease(bytes, flag(input, 'nightly'), container.catalog),
    );
    if (inspection.defaultCategories)
      io.err('appstore: this store has no categories yet; checking against the Nextcloud app store list');
    io.out(JSON.stringify(inspection.candidate, null, 2));
    return 0;
  },
};
