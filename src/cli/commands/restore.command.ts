import path from 'node:path';
import { auditEntry } from '../../domain/audit/audit.ts';
import { restoreDatabase } from '../../storage/restore.ts';
import { positional } from '../arguments.ts';
import type { Command } from '../command.ts';
import { cliActingFor, configFor } from '../context.ts';

export const restoreCommand: Command = {
  path: ['restore'],
  usage: 'appstore restore FILE',
  positionals: ['FILE'],
  summary: 'put a backup back in place of the database',
  help: `Replaces the database with the backup in FILE and gives it a new epoch, so that no ETag
given out before the restore names the restored content (docs/operations.md, "Backups and
restore").
SQLite: FILE is a copy written by \`appstore backup\`. Stop the server first: the restore is
refused while one runs on the data directory. The database it replaces is kept beside it
(appstore.sqlite.before-restore-<time>, with its -wal and -shm files, which are never replayed
over the backup). Start the server afterwards.
PostgreSQL: FILE is a dump written by pg_dump --format=custom. It is restored with pg_restore
--clean in one transaction (pg_restore must be installed), while the nodes may go on running:
they take the restored content at once.
Restore the secret key file of the same time too, if the key changed since.`,
  async run(input, io) {
    const file = path.resolve(io.cwd, positional(input, 0));
    const config = configFor(io);
    const report = await restoreDatabase(
      config.database,
      file,
      new Date(),
      auditEntry(cliActingFor(io), 'database.restored'),
    );
    io.out(`restored ${file}; the database's new epoch is ${report.epoch}`);
    if (report.keptAs !== null)
      io.out(`the database it replaced is kept as ${report.keptAs} (remove it once the restore is checked)`);
    io.out(
      config.database.kind === 'sqlite'
        ? 'start the server now'
        : 'running nodes serve the restored content from now on',
    );
    return 0;
  },
};
