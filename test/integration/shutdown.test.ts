import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { isDatabaseReachable } from '../../src/storage/database.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';

describe(`graceful shutdown (${DIALECT})`, () => {
  test('stop: refuses new connections, finishes the request in flight, closes the database', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({ ...database.env, APPSTORE_PORT: '0', APPSTORE_LOG_LEVEL: 'silent' });
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finishSlow: () => void = () => undefined;
    const server = await startServer(config, {
      beforeListen: (app) =>
        app.get('/slow', {
          schema: { response: { 200: Type.Object({ done: Type.Boolean() }) } },
          handler: async () => {
            release();
            await new Promise<void>((resolve) => {
              finishSlow = resolve;
            });
            return { done: true };
          },
        }),
    });
    const { port } = server.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await fetch(`${base}/healthz`)).status, 200);

    const inFlight = fetch(`${base}/slow`);
    await started;
    const stopped = server.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await assert.rejects(fetch(`${base}/healthz`, { headers: { connection: 'close' } }), 'new connections are refused while stopping');
    finishSlow();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { done: true });
    await stopped;
    assert.equal(await isDatabaseReachable(server.container.database.db), false, 'the database is closed');
    await database.dispose();
  });

  test('SIGTERM: `appstore serve` stops cleanly with exit status 0', async () => {
    const database = await createTestDatabase();
    const serve = await startServeProcess(database.env);
    const listing = await fetch(`${serve.url}/api/v1/categories.json`);
    assert.equal(listing.status, 200);
    assert.deepEqual(await listing.json(), []);
    assert.equal(await serve.stop(), 0);
    const lines = serve.output().trim().split('\n').map((line) => JSON.parse(line) as { msg: string; reqId?: string });
    assert.ok(lines.some((line) => line.msg === 'shutdown complete'), serve.output());
    assert.ok(lines.some((line) => line.msg === 'request completed' && typeof line.reqId === 'string'), 'structured request logs with a request id');
    await database.dispose();
  });
});
