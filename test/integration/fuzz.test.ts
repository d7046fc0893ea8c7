import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { registeredRoutes } from '../../src/http/route-registry.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

/** A small seeded generator (mulberry32): the same requests on every run, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REQUESTS = 3000;
/** APPSTORE_TEST_FUZZ_SEED replays or varies the run (the failure message names the request). */
const SEED = Number(process.env['APPSTORE_TEST_FUZZ_SEED'] ?? 20261123);

/** Path parameter values: valid, malformed, encoded, oversized, traversal. */
const PARAMS = [
  'news',
  '1.0.0',
  '12.0.0',
  'nightly',
  '',
  'NEWS',
  'a'.repeat(300),
  '%E0%A4%A',
  '%00',
  '%2e%2e',
  '..',
  '%2F',
  '%ff%fe',
  '1.0',
  '1.0.0-beta.1+build',
  '%F0%9F%98%80',
  'news%20app',
  '-1',
  '9'.repeat(40),
  '%25',
  '%u0041',
  'ca%CC%81',
];
/** Download URLs that never leave this machine: loopback literals refused by the address guard, or not HTTPS at all. */
const DOWNLOADS = [
  'https://127.0.0.1/a.tar.gz',
  'https://[::1]/a.tar.gz',
  'https://0.0.0.0/x',
  'http://127.0.0.1/a.tar.gz',
  'ftp://127.0.0.1/a',
  'https://',
  'not a url',
  '',
];
const TEXTS = [
  '',
  'x',
  'é',
  '\u{1F600}',
  'a'.repeat(70_000),
  '<script>alert(1)</script>',
  '\u0000',
  '-----BEGIN CERTIFICATE-----\n'.repeat(50),
  'AAAA',
  '====',
  readCert('news.sig'),
];
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, 'text', [], {}, [1, 2], { a: 1 }, '0.5', 2, 0.25];

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)] as T;
}

function fuzzValue(rnd: () => number, depth = 0): unknown {
  const roll = rnd();
  if (roll < 0.4) return pick(rnd, TEXTS);
  if (roll < 0.7 || depth > 3) return pick(rnd, VALUES);
  if (roll < 0.85) return Array.from({ length: Math.floor(rnd() * 3) }, () => fuzzValue(rnd, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(rnd() * 3) }, () => [
      pick(rnd, ['a', 'rating', 'comment', 'language', '__proto__', 'constructor']),
      fuzzValue(rnd, depth + 1),
    ]),
  );
}

/** A body that is well-formed for some routes and malformed for the others, in many encodings. */
function fuzzBody(rnd: () => number): { payload?: string | Buffer; contentType?: string } {
  const fields = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {};
    const names = [
      'download',
      'signature',
      'nightly',
      'certificate',
      'rating',
      'comment',
      'language',
      'username',
      'password',
      'extra',
    ];
    for (const name of names) {
      if (rnd() < 0.5) continue;
      body[name] =
        name === 'download' && rnd() < 0.7
          ? pick(rnd, DOWNLOADS)
          : name === 'certificate' && rnd() < 0.3
            ? readCert('news.crt')
            : fuzzValue(rnd);
    }
    return body;
  };
  switch (Math.floor(rnd() * 12)) {
    case 0:
      return {};
    case 1:
      return { payload: '{"download":', contentType: 'application/json' };
    case 2:
      return { payload: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json' };
    case 3:
      return { payload: '{"comment":"\\ud800","rating":1}', contentType: 'application/json' };
    case 4:
      return { payload: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' };
    case 5:
      return { payload: 'username=alice&password=x', contentType: 'application/x-www-form-urlencoded' };
    case 6:
      return {
        payload: '<xml/>',
        contentType: pick(rnd, [
          'application/xml',
          'text/plain',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          '',
        ]),
      };
    case 7:
      return { payload: JSON.stringify(fuzzValue(rnd)), contentType: 'application/json' };
    case 8:
      return { payload: '{"__proto__":{"isAdmin":true},"rating":1}', contentType: 'application/json' };
    default:
      return { payload: JSON.stringify(fields()), contentType: 'application/json' };
  }
}

function fuzzHeaders(rnd: () => number, tokens: { valid: string }): Record<string, string> {
  const headers: Record<string, string> = {};
  const auth = rnd();
  if (auth < 0.35) headers['authorization'] = `Token ${tokens.valid}`;
  else if (auth < 0.45)
    headers['authorization'] = pick(rnd, [
      'Token ',
      'Token x',
      `Token ${'f'.repeat(64)}`,
      `Bearer ${tokens.valid}`,
      'Basic',
      'Basic !!!',
      'Basic ' + Buffer.from('nocolon').toString('base64'),
      'Digest x',
      'Token ' + 'a'.repeat(5000),
    ]);
  else if (auth < 0.47)
    headers['authorization'] = basic(
      pick(rnd, ['alice', 'nobody', 'ALICE', '']),
      pick(rnd, ['secret-enough', 'wrong', '']),
    );
  if (rnd() < 0.2)
    headers['cookie'] = pick(rnd, [
      'appstore_session=x',
      'appstore_session=',
      'appstore_session=%ff',
      '=;;',
      'a=b; appstore_csrf=c',
    ]);
  if (rnd() < 0.2) headers['x-csrf-token'] = pick(rnd, ['', 'x', 'a'.repeat(1000)]);
  if (rnd() < 0.2)
    headers['if-none-match'] = pick(rnd, ['*', '"x"', 'W/"x"', '', '"' + 'a'.repeat(2000) + '"', '"a", "b"']);
  if (rnd() < 0.2) headers['if-modified-since'] = pick(rnd, ['yesterday', 'Mon, 01 Jan 2001 00:00:00 GMT', '0', '']);
  if (rnd() < 0.2)
    headers['accept-encoding'] = pick(rnd, ['br', 'gzip', 'deflate', 'identity;q=0', '*;q=0', 'gzip;q=abc', '']);
  if (rnd() < 0.1) headers['accept-language'] = pick(rnd, ['de', '*', '', 'x'.repeat(500), 'en;q=nope']);
  if (rnd() < 0.1) headers['origin'] = pick(rnd, ['https://evil.example', 'null', 'not a url', '']);
  if (rnd() < 0.1) headers['x-request-id'] = pick(rnd, ['ok-id', 'bad id with spaces', 'x'.repeat(200)]);
  if (rnd() < 0.05) headers['x-forwarded-for'] = pick(rnd, ['1.2.3.4', 'garbage', '::1, 10.0.0.1']);
  return headers;
}

describe(`fuzzing every route (${DIALECT})`, () => {
  let server: TestServer;
  let token = '';

  before(async () => {
    server = await createTestServer({ env: { APPSTORE_CA_CERT: certFile('chain.pem') } });
    await importCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    await createUser(server.container, 'alice', 'secret-enough');
    await createUser(server.container, 'bob', null);
    token = await getOrCreateToken(
      await server.container.accounts.store.findUserByUsername('bob').then((r) => {
        assert.ok(r !== null);
        return { id: r.id, username: r.username, isAdmin: r.isAdmin, hasPassword: r.hasPassword };
      }),
      TEST_ACTING,
      server.container.accounts,
    );
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201, registered.body);
  });
  after(() => server.close());

  test(`${REQUESTS} malformed and hostile requests: no 5xx, every error has detail and code, the server still answers`, async () => {
    const rnd = random(SEED);
    const routes = registeredRoutes(server.app).filter((route) => route.method !== 'HEAD' || rnd() < 0.5);
    const seen = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const route = pick(rnd, routes);
      const method =
        rnd() < 0.9 ? route.method : pick(rnd, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
      let url = route.url.replace(/:(\w+)/g, () => pick(rnd, PARAMS));
      if (rnd() < 0.1) url = url.replace('/api/v1/', pick(rnd, ['/api/v1//', '/api//v1/', '/API/v1/', '/api/v1/./']));
      if (rnd() < 0.15) url += pick(rnd, ['?', '?a=1', '?%zz', '?a=%E0', `?${'q'.repeat(3000)}`, '/', '//', '#frag']);
      const body = method === 'GET' || method === 'HEAD' ? {} : fuzzBody(rnd);
      const headers = fuzzHeaders(rnd, { valid: token });
      if (body.contentType !== undefined && body.contentType !== '') headers['content-type'] = body.contentType;
      const described = `#${i} ${method} ${url.slice(0, 120)} ${JSON.stringify(headers).slice(0, 200)} ${String(body.payload ?? '').slice(0, 200)}`;
      const response = await server.app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(body.payload === undefined ? {} : { payload: body.payload }),
      });
      seen.set(response.statusCode, (seen.get(response.statusCode) ?? 0) + 1);
      assert.ok(response.statusCode < 500, `${described} → ${response.statusCode} ${response.body.slice(0, 300)}`);
      if (response.statusCode >= 400 && method !== 'HEAD') {
        const error = response.json() as { detail?: unknown; code?: unknown };
        assert.equal(typeof error.detail, 'string', `${described} → ${response.body.slice(0, 300)}`);
        assert.equal(typeof error.code, 'string', `${described} → ${response.body.slice(0, 300)}`);
        assert.equal(response.headers['x-content-type-options'], 'nosniff', described);
        assert.ok(response.headers['x-request-id'] !== undefined, described);
      }
    }
    // The mix reached past authentication and validation, not only 401s.
    for (const status of [200, 400, 401, 404])
      assert.ok((seen.get(status) ?? 0) > 20, `too few ${status}: ${JSON.stringify([...seen])}`);
    assert.equal((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });
});
