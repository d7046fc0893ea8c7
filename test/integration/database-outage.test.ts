import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { hasNginx, startNginx } from '../helpers/nginx.ts';
import type { RunningNginx } from '../helpers/nginx.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

const PASSWORD = 'a password through the outage';
const METRICS_TOKEN = 'metrics-token-behind-nginx';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request through nginx, over TLS with the tests' authority. */
function request(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = https.request(
      `${origin}${path}`,
      {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ca: TEST_TLS_CA,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

const skip =
  DIALECT !== 'postgres'
    ? 'PostgreSQL only: an outage of the database server (SQLite is a file of the node)'
    : !hasNginx()
      ? 'skipped: nginx is not installed (apt-get install nginx-light; .ci/run installs it)'
      : false;

/**
 * A PostgreSQL outage, as a Nextcloud server and a developer meet it through the shipped nginx
 * configuration: the node keeps serving the listings from memory (and /healthz says it can),
 * writes answer 503 with Retry-After and the contract's body (and /healthz/writes says why),
 * and all works again when the database is back. The outage is a proxy between the node and
 * PostgreSQL that the test cuts.
 */
describe('a database outage behind nginx (postgres)', { skip }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let node: ServeProcess;
  let nginx: RunningNginx;
  let origin = '';
  const basic = `Basic ${Buffer.from(`olga:${PASSWORD}`).toString('base64')}`;

  before(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.env['APPSTORE_DATABASE_URL'] ?? '');
    const added = await runCommand(['user', 'add', 'olga', '--password-stdin'], database.env, `${PASSWORD}\n`);
    assert.equal(added.code, 0, added.stderr);
    proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
    const throughProxy = new URL(direct);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);
    node = await startServeProcess({
      ...database.env,
      APPSTORE_DATABASE_URL: throughProxy.toString(),
      APPSTORE_METRICS_TOKEN: METRICS_TOKEN,
      APPSTORE_TRUST_PROXY: '127.0.0.1',
    });
    nginx = await startNginx(Number(new URL(node.url).port));
    origin = nginx.origin;
  });
  after(async () => {
    await nginx?.stop();
    await node?.stop();
    await proxy?.close();
    await database?.dispose();
  });

  test('listings 200 from memory, writes 503 with Retry-After, the health endpoints tell which; all back after', async () => {
    const listing = await request(origin, 'GET', '/api/v1/apps.json');
    assert.equal(listing.status, 200, nginx.errorLog());
    assert.equal((await request(origin, 'POST', '/api/v1/token', { authorization: basic })).status, 200);
    assert.equal((await request(origin, 'GET', '/healthz/writes')).status, 200);

    await proxy.cut();
    const during = await request(origin, 'GET', '/api/v1/apps.json');
    assert.equal(during.status, 200, `${nginx.errorLog()}\n${node.output().slice(-3000)}`);
    assert.equal(during.body, listing.body);
    const conditional = await request(origin, 'GET', '/api/v1/apps.json', {
      'if-none-match': String(listing.headers.etag),
    });
    assert.equal(conditional.status, 304);
    const health = await request(origin, 'GET', '/healthz');
    assert.equal(health.status, 200, health.body);
    assert.deepEqual(JSON.parse(health.body), { status: 'ok', database: 'unavailable', listings: 'ok' });

    const writes = [
      await request(origin, 'POST', '/api/v1/token', { authorization: basic }),
      await request(
        origin,
        'POST',
        '/api/v1/apps',
        { authorization: basic },
        JSON.stringify({ certificate: 'x', signature: 'y' }),
      ),
      await request(origin, 'GET', '/healthz/writes'),
    ];
    for (const answer of writes) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal(answer.headers['retry-after'], '5');
      const body = JSON.parse(answer.body) as { code: string; detail: string };
      assert.equal(body.code, 'database_unavailable');
      assert.match(body.detail, /database/);
    }
    assert.doesNotMatch(node.output(), /"statusCode":500/, 'no request answered 500');

    await proxy.resume();
    await eventually(async () =>
      assert.equal((await request(origin, 'POST', '/api/v1/token', { authorization: basic })).status, 200),
    );
    assert.equal((await request(origin, 'GET', '/healthz/writes')).status, 200);
  });

  test("the request id goes both ways: the client, nginx's access log and the store's log name the same id", async () => {
    const answer = await request(origin, 'GET', '/api/v1/categories.json');
    const id = String(answer.headers['x-request-id'] ?? '');
    assert.match(id, /^[0-9a-f]{32}$/);
    await eventually(async () =>
      assert.match(nginx.accessLog(), new RegExp(`"GET /api/v1/categories.json HTTP/[0-9.]+" 200 .* ${id}$`, 'm')),
    );
    await eventually(async () => assert.ok(node.output().includes(`"reqId":"${id}"`), 'the store logged the same id'));
  });

  test('metrics stay private through nginx, with or without a trailing slash', async () => {
    for (const path of ['/metrics', '/metrics/', '//metrics', '/metrics/x']) {
      const answer = await request(origin, 'GET', path, { authorization: `Bearer ${METRICS_TOKEN}` });
      assert.equal(answer.status, 404, `${path}: ${answer.status}`);
      assert.doesNotMatch(answer.body, /appstore_/);
    }
  });
});
