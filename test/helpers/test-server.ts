import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import type { Container } from '../../src/container.ts';
import { createTestDatabase } from './test-database.ts';
import type { TestDatabase } from './test-database.ts';

export interface TestServer {
  readonly app: FastifyInstance;
  readonly container: Container;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly env?: Record<string, string>;
  /** The clock of rate limits and sessions. */
  readonly now?: () => Date;
  /** Called before the server is ready: tests add probe routes here. */
  readonly configure?: (app: FastifyInstance, container: Container) => void;
  /** Reuse this database (a "restart" on the same data). */
  readonly database?: TestDatabase;
  /** Extra authorities release downloads trust (the local HTTPS archive server's test CA). */
  readonly downloadCa?: readonly string[];
}

/** A server on a freshly migrated database of its own, for `app.inject()`; no listening socket. */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({ ...database.env, ...options.env });
  const handle = await database.open();
  const container = createContainer(config, {
    database: handle,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.downloadCa === undefined ? {} : { downloadCa: options.downloadCa }),
  });
  const app = await buildServer(container, { logger: false });
  options.configure?.(app, container);
  await app.ready();
  return {
    app,
    container,
    database,
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}
