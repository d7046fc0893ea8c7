import type { Command } from '../command.ts';
import { withContainer } from '../context.ts';

export const migrateCommand: Command = {
  path: ['migrate'],
  usage: 'appstore migrate',
  summary: 'apply pending database migrations',
  help: `Brings the database named by APPSTORE_DATABASE_URL (or the SQLite file in
APPSTORE_DATA_DIR) to the latest schema. Safe to run at any time; \`serve\` runs it too.`,
  async run(_input, io) {
    const report = await withContainer(io, (container) => container.migrate(), { migrate: false });
    io.out(report.applied.length === 0 ? 'database is up to date' : `applied: ${report.applied.join(', ')}`);
    for (const note of report.notes) io.out(note);
    return 0;
  },
};
