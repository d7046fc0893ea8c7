import { serveUntilSignalled, startServer } from '../../server.ts';
import type { Command } from '../command.ts';
import { configFor } from '../context.ts';

export const serveCommand: Command = {
  path: ['serve'],
  usage: 'appstore serve',
  summary: 'start the HTTP server (npm start runs this); migrates first',
  help: `Applies pending migrations, then serves the API on APPSTORE_HOST:APPSTORE_PORT
(default 127.0.0.1:8000) until SIGTERM or SIGINT, when it stops accepting connections,
finishes the requests in flight and closes the database. Logs are JSON lines on stdout.`,
  async run(_input, io) {
    await serveUntilSignalled(() =>
      startServer(configFor(io), { env: io.env, ...(io.warmed === undefined ? {} : { warmed: io.warmed }) }),
    );
    return 0;
  },
};
