import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import { loadConfig } from '../../src/config/config.ts';
import { startServer } from '../../src/server.ts';
import { isDatabaseReachable } from '../../src/storage/database.ts';
import { eventually } from '../helpers/eventually.ts';
import { ROOT } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import { placeFixtureAuthority } from '../helpers/fixture-authority.ts';

describe(`graceful shutdown (${DIALECT})`, () => {
  test('stop: refuses new connections, finishes the request in flight, closes the database', async () => {
    const database = await createTestDatabase();
    placeFixtureAuthority(database.dataDir);
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
    await assert.rejects(
      fetch(`${base}/healthz`, { headers: { connection: 'close' } }),
      'new connections are refused while stopping',
    );
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
    const lines = serve
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; reqId?: string });
    assert.ok(
      lines.some((line) => line.msg === 'shutdown complete'),
      serve.output(),
    );
    assert.ok(
      lines.some((line) => line.msg === 'request completed' && typeof line.reqId === 'string'),
      'structured request logs with a request id',
    );
    await database.dispose();
  });

  /** The process ids of the servers that logged (a JSON line's pid). */
  const loggedPids = (output: string): Set<number> =>
    new Set(
      output
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
  const isRunning = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  test("the README's production command: SIGTERM to the PID the caller got stops the server, exit status 0, nothing left", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const line = /<!-- production-command -->\n```sh\n(.+)\n```/.exec(readme)?.[1];
    assert.ok(line !== undefined, 'the README marks its production command');
    const database = await createTestDatabase();
    const serve = await startServeProcess(database.env, ['/bin/sh', '-c', line]);
    assert.deepEqual([...loggedPids(serve.output())], [serve.child.pid], 'the server is the process the caller holds');
    assert.equal(await serve.stop(), 0, serve.output());
    assert.match(serve.output(), /"msg":"shutdown complete"/);
    assert.equal(isRunning(serve.child.pid ?? 0), false);
    await database.dispose();
  });

  test('npm start passes SIGTERM on: the server stops with npm, nothing is left running', async () => {
    const database = await createTestDatabase();
    const serve = await startServeProcess(database.env, ['npm', 'start', '--silent']);
    const [serverPid] = [...loggedPids(serve.output())];
    assert.ok(serverPid !== undefined && serverPid !== serve.child.pid, 'npm runs the server as its child');
    await serve.stop();
    await eventually(async () => assert.equal(isRunning(serverPid), false, 'the server process is gone'));
    assert.match(serve.output(), /"msg":"shutdown complete"/, 'it shut down cleanly');
    await database.dispose();
  });
});
