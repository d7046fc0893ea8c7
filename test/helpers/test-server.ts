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

/** A server on a freshly migrated database of its own, for `app.inject()`; no listening socket. */
export async function createTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  const config = loadConfig({ ...database.env, ...env });
  const handle = await database.open();
  const container = createContainer(config, { database: handle });
  const app = await buildServer(container, { logger: false });
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
