import assert from 'node:assert/strict';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { createUser } from '../helpers/accounts.ts';
import { openConnection, rawExchange } from '../helpers/raw-http.ts';
import type { RawExchange } from '../helpers/raw-http.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

async function listening(server: TestServer): Promise<number> {
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  return (server.app.server.address() as AddressInfo).port;
}

/** The contract's body and the headers every answer carries, on a connection the server closed. */
function assertRefusal(exchange: RawExchange, status: number, code: string, detail?: RegExp): void {
  assert.equal(exchange.status, status, exchange.text);
  const body = JSON.parse(exchange.body) as { detail: string; code: string };
  assert.equal(body.code, code, exchange.body);
  assert.ok(body.detail.length > 10, exchange.body);
  if (detail !== undefined) assert.match(body.detail, detail);
  assert.match(exchange.headers['content-type'] ?? '', /^application\/json/);
  assert.match(exchange.headers['x-request-id'] ?? '', /^[\w.:-]+$/);
  assert.equal(exchange.headers['x-content-type-options'], 'nosniff');
  assert.equal(exchange.headers['connection']?.toLowerCase(), 'close');
  assert.ok(exchange.closed, 'the server closes the connection');
}

const GET = (path: string, headers = 'Host: store\r\n'): string => `GET ${path} HTTP/1.1\r\n${headers}\r\n`;

describe(`what Node and the router refuse, answered with the contract's body (${DIALECT})`, () => {
  let server: TestServer;
  let port = 0;
  let token = '';

  before(async () => {
    server = await createTestServer();
    token = await getOrCreateToken(
      await createUser(server.container, 'alice', null),
      TEST_ACTING,
      server.container.accounts,
    );
    port = await listening(server);
  });
  after(() => server.close());

  test('requests Node cannot parse: 400 with a sentence that says what was wrong', async () => {
    assertRefusal(await rawExchange(port, ['GARBAGE\r\n\r\n']), 400, 'invalid_request', /not HTTP/);
    assertRefusal(
      await rawExchange(port, [GET('/api/v1/apps.json', 'Host: store\r\nX-A: a\x01b\r\n')]),
      400,
      'invalid_request',
      /characters HTTP does not allow/,
    );
    assertRefusal(
      await rawExchange(port, [
        'POST /api/v1/token HTTP/1.1\r\nHost: store\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ]),
      400,
      'invalid_request',
      /framing/,
    );
    assertRefusal(
      await rawExchange(port, ['GET /api/v1/apps.json HTTP/9.9\r\nHost: store\r\n\r\n']),
      400,
      'invalid_request',
    );
  });

  test('headers over the limit: 431 headers_too_large', async () => {
    assertRefusal(
      await rawExchange(port, [GET('/api/v1/apps.json', `Host: store\r\nX-Big: ${'a'.repeat(20_000)}\r\n`)]),
      431,
      'headers_too_large',
      /16 KiB/,
    );
  });

  test('an HTTP/1.1 request without Host: 400 naming the header, with CORS on /api/', async () => {
    const exchange = await rawExchange(port, ['GET /api/v1/apps.json HTTP/1.1\r\n\r\n']);
    assertRefusal(exchange, 400, 'invalid_request', /no Host header/);
    assert.equal(exchange.headers['access-control-allow-origin'], '*');
    // HTTP/1.0 has no Host requirement.
    assert.equal((await rawExchange(port, ['GET /api/v1/apps.json HTTP/1.0\r\n\r\n'])).status, 200);
  });

  test('CONNECT: a JSON 400 saying this is no proxy; two Host headers: 400', async () => {
    assertRefusal(
      await rawExchange(port, ['CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n']),
      400,
      'invalid_request',
      /not a proxy: CONNECT example\.org:443/,
    );
    assertRefusal(
      await rawExchange(port, [GET('/api/v1/apps.json', 'Host: store\r\nHost: other\r\n')]),
      400,
      'invalid_request',
      /2 Host headers/,
    );
  });

  test('a client that half-closes after sending still gets its answer, on routes that wait for the database too', async () => {
    const requests: Array<[string, number]> = [
      [GET('/api/v1/apps.json'), 200],
      [GET('/api/v1/categories.json'), 200],
      [GET('/', 'Host: store\r\nAccept: text/html\r\n'), 200],
      // The token looked up, then the app: 404.
      [`DELETE /api/v1/apps/nosuchapp HTTP/1.1\r\nHost: store\r\nAuthorization: Token ${token}\r\n\r\n`, 404],
    ];
    for (const [request, status] of requests) {
      const exchange = await rawExchange(port, [request], { halfClose: true });
      assert.equal(exchange.status, status, `${request.split('\r\n')[0] ?? ''}: ${exchange.text.slice(0, 200)}`);
      assert.ok(exchange.closed, 'closed after the answer');
    }
  });

  test('an unsupported Expect: 417 expectation_failed; 100-continue works', async () => {
    assertRefusal(
      await rawExchange(port, [GET('/api/v1/apps.json', 'Host: store\r\nExpect: fancy\r\n')]),
      417,
      'expectation_failed',
      /100-continue/,
    );
    const continued = await rawExchange(port, [
      GET('/api/v1/apps.json', 'Host: store\r\nExpect: 100-continue\r\nConnection: close\r\n'),
    ]);
    assert.match(continued.text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  test('bad percent-encoding in a path: 400 with request id, nosniff and CORS', async () => {
    const exchange = await rawExchange(port, [
      GET('/api/v1/apps/%E0%A4%A/releases/1.0.0', 'Host: store\r\nConnection: close\r\n'),
    ]);
    assertRefusal(exchange, 400, 'invalid_request', /not valid percent-encoding/);
    assert.equal(exchange.headers['access-control-allow-origin'], '*');
    const injected = await server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/%E0%A4%A',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(injected.statusCode, 400);
    assert.equal(injected.json().code, 'invalid_request');
  });

  test('a path parameter over 100 characters: a 400 that names the parameter, not a 414', async () => {
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/apps/${'a'.repeat(150)}`,
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().code, 'invalid_request');
    assert.match(response.json().detail, /^Invalid path: appId: /);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
  });

  test('300 requests with random bytes changed, on raw sockets: every answer is ours, never a 5xx', async (t) => {
    let state = 7;
    const rnd = (): number => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const valid = Buffer.from(
      'POST /api/v1/apps/news/ratings HTTP/1.1\r\nHost: store\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{"rating":1}',
    );
    let answered = 0;
    for (let i = 0; i < 300; i++) {
      const bytes = Buffer.from(valid);
      for (let flips = 1 + Math.floor(rnd() * 4); flips > 0; flips--)
        bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      // Half-closed: the server answers what it can, then sees the end (an incomplete request
      // ends there instead of waiting out the deadline, whose own tests are below).
      const exchange = await rawExchange(port, [bytes], { waitMs: 400, halfClose: true });
      if (exchange.status === null) continue; // an incomplete request now (a longer Content-Length): closed unanswered
      answered += 1;
      assert.ok(exchange.status < 500, `${JSON.stringify(bytes.toString('latin1'))} → ${exchange.text.slice(0, 300)}`);
      if (exchange.status >= 400) {
        const body = JSON.parse(exchange.body) as { detail?: unknown; code?: unknown };
        assert.equal(typeof body.detail, 'string', exchange.text);
        assert.equal(typeof body.code, 'string', exchange.text);
        assert.equal(exchange.headers['x-content-type-options'], 'nosniff', exchange.text);
      }
    }
    t.diagnostic(`${answered} of 300 answered`);
    assert.ok(answered >= 200, `only ${answered} of 300 requests were answered`);
  });

  test('after all of it the server still answers', async () => {
    assert.equal((await rawExchange(port, [GET('/healthz', 'Host: store\r\nConnection: close\r\n')])).status, 200);
  });
});

describe(`deadlines and connection limits (${DIALECT})`, () => {
  let server: TestServer;
  let port = 0;

  before(async () => {
    server = await createTestServer({
      env: {
        APPSTORE_HEADERS_TIMEOUT_SECONDS: '0.5',
        APPSTORE_REQUEST_TIMEOUT_SECONDS: '1',
        APPSTORE_IDLE_TIMEOUT_SECONDS: '0.5',
        APPSTORE_MAX_CONNECTIONS_PER_ADDRESS: '4',
      },
    });
    port = await listening(server);
  });
  after(() => server.close());

  test('headers that never finish: 408 and closed', async () => {
    const exchange = await rawExchange(port, ['GET /api/v1/apps.json HTTP/1.1\r\nHost: st'], { waitMs: 5000 });
    assertRefusal(exchange, 408, 'request_timeout');
  });

  test('a connection that sends nothing is closed', async () => {
    const exchange = await rawExchange(port, [], { waitMs: 5000 });
    assert.ok(exchange.closed, `still open after ${exchange.elapsedMs} ms`);
  });

  test('a body that never finishes (Content-Length 100, 10 bytes sent): 408 and closed', async () => {
    const exchange = await rawExchange(
      port,
      [
        'POST /login HTTP/1.1\r\nHost: store\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":12345',
      ],
      { waitMs: 5000 },
    );
    assertRefusal(exchange, 408, 'request_timeout');
  });

  test('a chunked body that trickles: closed at the request deadline, while it still trickles', async () => {
    // A byte every 100 ms for 30 s: only the request deadline (1 s) ends it before the trickle
    // does. What is asserted is that it ended while the client was still sending, not how fast.
    const trickle = Array.from({ length: 300 }, () => '1\r\na\r\n');
    const exchange = await rawExchange(
      port,
      [
        'POST /login HTTP/1.1\r\nHost: store\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        ...trickle,
      ],
      {
        waitMs: 60_000,
        pauseMs: 100,
      },
    );
    assert.ok(exchange.closed, `still open after ${exchange.elapsedMs} ms`);
    assert.ok(
      exchange.sent < trickle.length + 1,
      `closed only after the whole trickle was sent (${exchange.elapsedMs} ms): the request deadline did not end it`,
    );
  });

  test('an idle kept-alive connection is closed after the idle time', async () => {
    const exchange = await rawExchange(port, [GET('/healthz')], { waitMs: 5000 });
    assert.equal(exchange.status, 200);
    assert.ok(exchange.closed, `still open after ${exchange.elapsedMs} ms`);
  });

  test('connections per address are bounded: the one over the limit gets 429 and is closed', async () => {
    const held: net.Socket[] = [];
    try {
      for (let i = 0; i < 4; i++) held.push(await openConnection(port));
      const refused = await rawExchange(port, [GET('/healthz')]);
      assertRefusal(refused, 429, 'rate_limited', /at most 4/);
      assert.equal(refused.headers['retry-after'], '1');
    } finally {
      for (const socket of held) socket.destroy();
    }
    // The held ones are closed: a new connection is served again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await rawExchange(port, [GET('/healthz', 'Host: store\r\nConnection: close\r\n')])).status, 200);
  });
});
