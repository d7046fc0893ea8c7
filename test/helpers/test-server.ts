import type { FastifyInstance } from 'fastify';
import type { AppServer } from '../../src/http/types.ts';
import { buildServer } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import { silentLog } from '../../src/store-log.ts';
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
  /** Seconds an identity provider has to answer (the store's default is 15). */
  readonly providerTimeoutSeconds?: number;
  /** Where the server's log lines go (JSON, level info and up); none when not given. */
  readonly logStream?: NodeJS.WritableStream;
}

/** A server on a freshly migrated database of its own, for `app.inject()`; no listening socket. */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase({ migrated: true }));
  try {
    return await serverOn(database, options);
  } catch (error) {
    // A server that could not be made (a test of a refused setting) leaves no database behind.
    if (options.database === undefined) await database.dispose();
    throw error;
  }
}

async function serverOn(database: TestDatabase, options: TestServerOptions): Promise<TestServer> {
  const config = loadConfig({ ...database.env, ...options.env });
  const handle = await database.open();
  const container = createContainer(config, {
    database: handle,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.downloadCa === undefined ? {} : { downloadCa: options.downloadCa }),
    ...(options.providerTimeoutSeconds === undefined ? {} : { providerTimeoutSeconds: options.providerTimeoutSeconds }),
    // The tests look at what happened, not at the log (mails held back by the limit, a publish job that failed).
    log: silentLog,
  });
  const app = await buildServer(container, {
    logger: options.logStream === undefined ? false : { level: 'info', stream: options.logStream },
  });
  refuseUndeclaredStatuses(app);
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

/**
 * Every 4xx a route answers must be among the statuses its schema declares (derived from the
 * error codes it names), so that the OpenAPI document cannot drift from the behaviour: across the
 * whole suite, an undeclared one turns the response into a 500 that names the route and status.
 */
function refuseUndeclaredStatuses(app: AppServer): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const declared = (request.routeOptions.schema as { response?: Record<string, unknown> } | undefined)?.response;
    const status = reply.statusCode;
    if (declared === undefined || status < 400 || status >= 500 || String(status) in declared) return payload;
    reply.code(500);
    return JSON.stringify({
      detail: `${request.method} ${request.routeOptions.url ?? ''} answered ${status} (${String(payload)}) but declares only ${Object.keys(declared).join(', ')}`,
      code: 'undeclared_status',
    });
  });
}
