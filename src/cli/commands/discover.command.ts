import { exportDiscover, importDiscover } from '../../domain/discover/manage-discover.ts';
import { positional, readJsonFile } from '../arguments.ts';
import type { Command } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';
import { counted } from '../text.ts';

export const discoverImportCommand: Command = {
  path: ['discover', 'import'],
  usage: 'appstore discover import FILE',
  positionals: ['FILE'],
  summary: "replace discover.json's entries with FILE's",
  help: `FILE is a JSON array of entries, as GET /api/v1/discover.json serves them and the original
store's schema (app-discover.schema.json) describes them: posts, showcases and carousels, e.g.
  [{"type": "post", "id": "welcome", "headline": {"en": "Welcome"},
    "media": {"content": {"src": "https://example.org/a.png", "alt": "A banner"}}}]
Every entry needs a unique id; texts need "en"; every URL must be https://; a showcase's apps
(and app://APP_ID links) must be apps of this store; unknown fields are refused. The whole file
is checked first: one problem refuses it all, each named by entry and field. Entries whose
expiryDate has passed stay stored but are left out of discover.json (from the next day on).`,
  async run(input, io) {
    const data = readJsonFile(positional(input, 0), io);
    const result = await withContainer(io, (container) => importDiscover(data, cliActingFor(io), container.discover));
    const entries = counted(result.entries, 'discover entry', 'discover entries');
    io.out(result.changed ? `imported ${entries}` : `${entries}, already these: nothing changed`);
    return 0;
  },
};

export const discoverExportCommand: Command = {
  path: ['discover', 'export'],
  usage: 'appstore discover export',
  summary: "print discover.json's entries, expired ones included (JSON)",
  help: 'Prints every stored entry as a JSON array that `appstore discover import` takes back: edit it and import it again.',
  async run(_input, io) {
    const entries = await withContainer(io, (container) => exportDiscover(cliActingFor(io), container.discover), {
      reads: true,
    });
    if (entries.length === 0) io.err('no discover entries yet: appstore discover import FILE adds them');
    io.out(JSON.stringify(entries, null, 2));
    return 0;
  },
};
