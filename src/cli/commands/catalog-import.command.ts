import { importCategories, importPlatformReleases } from '../../domain/catalog/import-catalog.ts';
import type { ImportSummary } from '../../domain/catalog/import-catalog.ts';
import { positional, readJsonFile } from '../arguments.ts';
import type { Command } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';
import { counted } from '../text.ts';

function importCommand(
  kind: 'category' | 'platform',
  [one, noun]: readonly [string, string],
  help: string,
  importer: typeof importCategories,
): Command {
  const listing = kind === 'category' ? 'categories.json' : 'platforms.json';
  return {
    path: [kind, 'import'],
    usage: `appstore ${kind} import FILE`,
    positionals: ['FILE'],
    summary: `upsert ${noun} from a JSON array shaped like ${listing}`,
    help,
    async run(input, io) {
      const data = readJsonFile(positional(input, 0), io);
      const summary: ImportSummary = await withContainer(io, (container) =>
        importer(data, cliActingFor(io), container.catalog),
      );
      const total = summary.created + summary.updated + summary.unchanged;
      io.out(
        `imported ${counted(total, one, noun)}: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged`,
      );
      return 0;
    },
  };
}

export const categoryImportCommand = importCommand(
  'category',
  ['category', 'categories'],
  `FILE is a JSON array shaped like GET /api/v1/categories.json:
  [{"id": "games", "translations": {"en": {"name": "Games", "description": ""}}}]
Each category is created, or its translations replaced by the file's; categories not in the
file stay. Every category needs an "en" translation. The whole file is checked first: one bad
entry refuses the file, naming the entry and field, and nothing is imported.`,
  importCategories,
);

export const platformImportCommand = importCommand(
  'platform',
  ['platform release', 'platform releases'],
  `FILE is a JSON array shaped like GET /api/v1/platforms.json, isSupported included:
  [{"version": "30.0.1", "hasRelease": true, "isSupported": true}]
Each release is created or its flags updated; releases not in the file stay. platforms.json
lists only those with isSupported true. The whole file is checked first: one bad entry
refuses the file, naming the entry and field, and nothing is imported.`,
  importPlatformReleases,
);
