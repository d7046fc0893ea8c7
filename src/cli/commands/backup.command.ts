import fs from 'node:fs';
import path from 'node:path';
import { positional } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { withContainer } from '../context.ts';

export const backupCommand: Command = {
  path: ['backup'],
  usage: 'appstore backup FILE',
  positionals: ['FILE'],
  summary: 'write a consistent copy of the SQLite database (while the server runs)',
  help: `Copies the SQLite database to FILE with SQLite's online backup: the server may go on
serving and writing meanwhile; the copy is consistent, checked (integrity_check) and written
under a temporary name first, so FILE is never half a copy. FILE must not exist.
On PostgreSQL, use pg_dump instead: pg_dump --format=custom "$APPSTORE_DATABASE_URL" > FILE.
A backup is the database only: keep the secret key file (APPSTORE_SECRET_KEY_FILE) too, apart
from it (docs/operations.md).`,
  async run(input, io) {
    const file = path.resolve(io.cwd, positional(input, 0));
    if (fs.existsSync(file)) throw new CliError(`${file} exists: give a new file name (a backup never overwrites)`);
    if (!fs.existsSync(path.dirname(file))) throw new CliError(`${path.dirname(file)}: no such directory`);
    const pages = await withContainer(
      io,
      async (container) => {
        const backup = container.database.backup;
        if (backup === null)
          throw new CliError(
            'the database is PostgreSQL: back it up with pg_dump --format=custom "$APPSTORE_DATABASE_URL" > FILE (docs/operations.md)',
          );
        return (await backup(file)).pages;
      },
      { migrate: false, reads: true },
    );
    io.out(`backed up ${pages} pages to ${file} (integrity checked); keep the secret key file with it, stored apart`);
    return 0;
  },
};
