import { importCategories, importPlatformReleases } from '../../domain/catalog/import-catalog.ts';
import type { ImportSummary } from '../../domain/catalog/import-catalog.ts';
import type { Command } from '../command.ts';
import { expectOneArgument, readJsonFile } from '../arguments.ts';
import { withContainer } from '../context.ts';

function describe(summary: ImportSummary, noun: string): string {
  const total = summary.created + summary.updated + summary.unchanged;
  return `imported ${total} ${noun}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged`;
}

export const categoryImportCommand: Command = {
  path: ['category', 'import'],
  usage: 'appstore category import FILE',
  summary: 'upsert categories from a JSON array shaped like categories.json',
  help: `FILE is a JSON array shaped like GET /api/v1/categories.json:
  [{"id": "games", "translations": {"en": {"name": "Games", "description": ""}}}]
Each category is created, or its translations replaced by the file's; categories not in the
file stay. Every category needs an "en" translation. The whole file is checked first: one bad
entry refuses the file, naming the entry and field, and nothing is imported.`,
  async run(args) {
    const file = expectOneArgument(args, this.usage, 'FILE');
    const data = readJsonFile(file);
    const summary = await withContainer((container) => importCategories(data, container.catalog));
    console.log(describe(summary, 'categories'));
    return 0;
  },
};

export const platformImportCommand: Command = {
  path: ['platform', 'import'],
  usage: 'appstore platform import FILE',
  summary: 'upsert platform releases from a JSON array shaped like platforms.json',
  help: `FILE is a JSON array shaped like GET /api/v1/platforms.json, isSupported included:
  [{"version": "30.0.1", "hasRelease": true, "isSupported": true}]
Each release is created or its flags updated; releases not in the file stay. platforms.json
lists only those with isSupported true. The whole file is checked first: one bad entry
refuses the file, naming the entry and field, and nothing is imported.`,
  async run(args) {
    const file = expectOneArgument(args, this.usage, 'FILE');
    const data = readJsonFile(file);
    const summary = await withContainer((container) => importPlatformReleases(data, container.catalog));
    console.log(describe(summary, 'platform releases'));
    return 0;
  },
};
