import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from 'typebox';
import { Writable } from 'node:stream';
import { buildServer } from '../../src/app.ts';
import { AppError } from '../../src/errors.ts';
import { allowedMethods, registeredRoutes } from '../../src/http/route-registry.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const LISTINGS = ['/api/v1/categories.json', '/api/v1/platforms.json'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function assertErrorShape(body: unknown, code: string): void {
  assert.ok(typeof body === 'object' && body !== null);
  const { detail, code: actual } = body as { detail: unknown; code: unknown };
  assert.equal(actual, code);
  assert.equal(typeof detail, 'string');
  assert.ok((detail as string).length > 10);
}

describe(`routing and errors (${DIALECT})`, () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.close());

  test('unknown path: 404 with the JSON error shape', async () => {
    for (const url of ['/nothing', '/api/v1/nothing.json', '/api/v2/apps.json', '/api/v1/categories.json.bak']) {
      const response = await server.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assertErrorShape(response.json(), 'not_found');
    }
  });

  test('known path, other method: 405 with Allow', async () => {
    for (const url of LISTINGS) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const response = await server.app.inject({ method, url, payload: method === 'DELETE' ? undefined : {} });
        assert.equal(response.statusCode, 405, `${method} ${url}`);
        assert.equal(response.headers.allow, 'GET, HEAD');
        assertErrorShape(response.json(), 'method_not_allowed');
      }
    }
    const health = await server.app.inject({ method: 'POST', url: '/healthz' });
    assert.equal(health.statusCode, 405);
    assert.equal(health.headers.allow, 'GET, HEAD');
  });

  test('every route: a method it does not serve is a 405 whose Allow names those it does (issue 52)', async () => {
    const routes = registeredRoutes(server.app);
    const paths = new Map<string, Set<string>>();
    for (const route of routes) {
      const url = route.url.replace(/:(\w+)/g, (_m, name: string) =>
        name === 'lang' ? 'en' : name === 'version' ? '1.0.0' : name === 'file' ? '1.0.0.tar.gz' : 'news',
      );
      if (url.includes('*')) continue;
      const methods = paths.get(url) ?? new Set<string>();
      methods.add(route.method);
      paths.set(url, methods);
    }
    assert.ok(paths.size > 40, `${paths.size} paths`);
    for (const [url, methods] of paths) {
      const served = allowedMethods(server.app, url);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        if (served.includes(method)) continue;
        const response = await server.app.inject({ method, url });
        assert.equal(response.statusCode, 405, `${method} ${url} (serves ${[...methods].join(', ')})`);
        assert.equal(response.headers.allow, served.join(', '), `${method} ${url}`);
      }
    }
  });

  test('405 also through doubled slashes', async () => {
    const response = await server.app.inject({ method: 'DELETE', url: '/api/v1//categories.json' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
  });

  test('no method on any route answers 5xx', async () => {
    const urls = [
      ...LISTINGS,
      '/healthz',
      '/api/v1/openapi.json',
      '/',
      '/api/v1/',
      '/api/v1//',
      '/%',
      '/api/v1/%zz.json',
    ];
    for (const url of urls) {
      for (const method of METHODS) {
        const response = await server.app.inject({
          method,
          url,
          headers: { 'content-type': 'application/json' },
          payload: method === 'POST' ? '{not json' : undefined,
        });
        assert.ok(response.statusCode < 500, `${method} ${url} → ${response.statusCode}`);
      }
    }
  });

  test('every response carries a request id; a sane incoming one is kept', async () => {
    const generated = await server.app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const kept = await server.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'proxy-123' } });
    assert.equal(kept.headers['x-request-id'], 'proxy-123');
    const replaced = await server.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id\twith spaces');
    assert.equal(kept.headers['x-content-type-options'], 'nosniff');
  });
});

describe('request errors in the one shape (a route built for this test)', () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.close());

  async function appWithEchoRoute() {
    const app = await buildServer(server.container, { logger: false });
    app.post('/echo', {
      schema: {
        body: Type.Object({ download: Type.String({ pattern: '^https://' }), nightly: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Object({ ok: Type.Boolean() }) },
      },
      handler: async () => ({ ok: true }),
    });
    app.get('/boom', {
      schema: { response: { 200: Type.Object({}) } },
      handler: async () => {
        throw new Error('secret internal detail /var/lib/x');
      },
    });
    await app.ready();
    return app;
  }

  test('validation: 400 invalid_request naming each field', async () => {
    const app = await appWithEchoRoute();
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: { download: 'http://x', nightly: 'true' },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assertErrorShape(body, 'invalid_request');
    assert.deepEqual(Object.keys(body.errors).sort(), ['download', 'nightly']);
    assert.match(body.detail, /^Invalid request body: (download|nightly): /);
    const missing = await app.inject({ method: 'POST', url: '/echo', payload: {} });
    assert.deepEqual(missing.json().errors, { download: ['This field is required.'] });
    await app.close();
  });

  test('malformed JSON: 400 malformed_json; empty: 400; wrong content type: 415; too large: 413', async () => {
    const app = await appWithEchoRoute();
    const malformed = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"download":',
    });
    assert.equal(malformed.statusCode, 400);
    assertErrorShape(malformed.json(), 'malformed_json');
    // An empty JSON body counts as no body: refused by the route's schema, not as malformed JSON.
    const empty = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 400);
    assertErrorShape(empty.json(), 'invalid_request');
    const poisoned = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"download": "https://x", "__proto__": {"admin": true}}',
    });
    assert.equal(poisoned.statusCode, 400);
    const xml = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    assert.equal(xml.statusCode, 415);
    assertErrorShape(xml.json(), 'unsupported_media_type');
    const notUtf8 = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    assert.equal(notUtf8.statusCode, 400);
    assertErrorShape(notUtf8.json(), 'malformed_json');
    assert.match(notUtf8.json().detail, /not valid UTF-8/);
    const large = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ download: 'https://x/' + 'a'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(large.statusCode, 413);
    assertErrorShape(large.json(), 'payload_too_large');
    await app.close();
  });

  test('messages a person reads: the JSON error once with its position; a form body; a malformed path parameter', async () => {
    const app = await appWithEchoRoute();
    const malformed = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"download": "https://x",}',
    });
    const detail = String(malformed.json().detail);
    assert.match(detail, /^The body is not valid JSON: .*position 25/);
    assert.equal(detail.match(/not valid JSON/gi)?.length, 1, detail);
    // curl -d without -H sends a form: a JSON route says so, instead of "download: This field is required".
    const form = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '{"download": "https://x"}',
    });
    assert.equal(form.statusCode, 415);
    assertErrorShape(form.json(), 'unsupported_media_type');
    assert.match(form.json().detail, /sent as a form .*Content-Type: application\/json/);
    await app.close();

    for (const [url, expected] of [
      [
        '/api/v1/platform/30/apps.json',
        /^Invalid path: version: expected a platform version X\.Y\.Z, digits only, such as 30\.0\.0$/,
      ],
      ['/api/v1/platform/30.0.0-rc1/apps.json', /expected a platform version X\.Y\.Z/],
    ] as const) {
      const response = await server.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 400, url);
      assert.match(response.json().detail, expected);
      assert.doesNotMatch(response.body, /\^|\\d|pattern/, 'no regular expression in the message');
    }
    // Authenticated routes check credentials first: a signed-in caller sees the path's message.
    await createUser(server.container, 'paula', 'a long password');
    const authorization = basic('paula', 'a long password');
    for (const [url, expected] of [
      [
        '/api/v1/apps/news/releases/1.0',
        /^Invalid path: version: expected a semantic version such as 1\.2\.3 or 1\.2\.3-beta\.1/,
      ],
      [
        '/api/v1/apps/News/ratings',
        /^Invalid path: appId: expected an app id: lower-case letters a-z, digits and underscores/,
      ],
    ] as const) {
      const response = await server.app.inject({ method: 'DELETE', url, headers: { authorization } });
      assert.equal(response.statusCode, 400, url);
      assertErrorShape(response.json(), 'invalid_request');
      assert.match(response.json().detail, expected);
    }
  });

  test('a configuration problem: 500 configuration_error; the detail goes to the log, not to the client', async () => {
    let log = '';
    const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => ((log += chunk.toString()), done()) });
    const app = await buildServer(server.container, { logger: { level: 'info', stream } });
    app.get('/misconfigured', {
      schema: { response: { 200: Type.Object({}) } },
      handler: async () => {
        throw new AppError('configuration_error', 'The secret key file /etc/appstore/secret.key is too short.');
      },
    });
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/misconfigured' });
    assert.equal(response.statusCode, 500);
    assertErrorShape(response.json(), 'configuration_error');
    assert.doesNotMatch(response.body, /secret\.key/);
    assert.match(log, /secret\.key is too short/);
    // A refused request's log line carries the refusal's detail, not only its code.
    await app.inject({ method: 'GET', url: '/api/v1/nothing.json' });
    const refused = log
      .split('\n')
      .filter((line) => line.includes('"request refused"'))
      .map((line) => JSON.parse(line) as { code: string; detail: string });
    assert.ok(
      refused.some(
        (entry) => entry.code === 'not_found' && /No such path: GET \/api\/v1\/nothing\.json/.test(entry.detail),
      ),
      log,
    );
    await app.close();
  });

  test('a server fault: 500 internal_error that reveals nothing', async () => {
    const app = await appWithEchoRoute();
    const response = await app.inject({ method: 'GET', url: '/boom' });
    assert.equal(response.statusCode, 500);
    assertErrorShape(response.json(), 'internal_error');
    assert.ok(!response.body.includes('secret'));
    assert.ok(!response.body.includes('/var/lib'));
    await app.close();
  });
});
