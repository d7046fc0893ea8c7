import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Validators } from '../domain/listings/listings.ts';
import { LISTING_PATHS } from './listing-addresses.ts';
import { listingOf, notModifiedFastPath } from './listing-fast-path.ts';

test('listingOf: the listing each polled address names, as the routes read it', () => {
  assert.deepEqual(listingOf('/api/v1/apps.json'), { kind: 'apps', includeEnterprise: false });
  assert.deepEqual(listingOf('/api/v1/apps.json?include_enterprise=TRUE'), { kind: 'apps', includeEnterprise: true });
  assert.deepEqual(listingOf('/api/v1/platform/31.0.0/apps.json'), {
    kind: 'apps',
    includeEnterprise: false,
    platform: '31.0.0',
  });
  assert.deepEqual(listingOf('/api/v1/appapi_apps.json'), { kind: 'apps', includeEnterprise: false, exApps: true });
  assert.deepEqual(listingOf('/api/v1//appapi_apps.json/?include_enterprise=1'), {
    kind: 'apps',
    includeEnterprise: true,
    exApps: true,
  });
  assert.deepEqual(listingOf('/api/v1/discover.json'), { kind: 'discover' });
  assert.deepEqual(listingOf('/api/v1/categories.json'), { kind: 'categories' });
  assert.equal(listingOf('/api/v1/platform/31/apps.json'), null, 'not a platform version the route takes');
  assert.equal(
    listingOf('/api/v1/apps.json?include_enterprise=1&include_enterprise=0'),
    null,
    'repeated: the route refuses it',
  );
  assert.equal(listingOf('/api/v1/discover'), null);
});

test('listingOf reads every address the listing routes register (listing-addresses.ts), and nothing beside them', () => {
  const kinds = Object.entries(LISTING_PATHS).map(([name, path]) => [
    name,
    listingOf(path.replace(':version', '30.0.1'))?.kind,
  ]);
  assert.deepEqual(Object.fromEntries(kinds), {
    apps: 'apps',
    platformApps: 'apps',
    exApps: 'apps',
    ratings: 'ratings',
    categories: 'categories',
    discover: 'discover',
    platforms: 'platforms',
  });
  for (const other of [
    '/api/v1/apps.jsonx',
    '/api/v1/platform/30.0.1/x/apps.json',
    '/api/v1/platform//apps.json',
    '/api/v2/apps.json',
    '/api/v1/ratings.json/x',
  ]) {
    assert.equal(listingOf(other), null, other);
  }
});

test("a 304 before routing carries the caller's request id, or the logged one's, and no made-up id otherwise", async () => {
  const validators: Validators = {
    etag: '"i-7-apps"',
    changedAt: new Date('2026-11-01T10:00:00Z'),
    stamp: { instanceId: 'i', version: 7, changedAt: new Date('2026-11-01T10:00:00Z') },
    day: '2026-11-26',
  };
  const listings = { validatorsOf: () => validators, stillValid: (held: Validators) => held === validators };
  const logged: { reqId: string; url: string }[] = [];
  let logRate = 0;
  const server = http.createServer((request, response) => {
    const fastPath = notModifiedFastPath(listings, {
      logRate,
      log: (entry) => logged.push(entry),
      keepAliveTimeoutMs: server.keepAliveTimeout,
    });
    if (!fastPath.answer(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/apps.json`;
  try {
    const plain = await fetch(url, { headers: { 'if-none-match': validators.etag } });
    assert.equal(plain.status, 304);
    assert.equal(plain.headers.get('etag'), validators.etag);
    assert.equal(plain.headers.get('x-request-id'), null, 'in no log line: no id');
    const echoed = await fetch(url, { headers: { 'if-none-match': validators.etag, 'x-request-id': 'poll-42' } });
    assert.equal(echoed.headers.get('x-request-id'), 'poll-42');
    const insane = await fetch(url, { headers: { 'if-none-match': validators.etag, 'x-request-id': 'no spaces' } });
    assert.equal(insane.headers.get('x-request-id'), null, 'not a sane id: neither echoed nor replaced');
    assert.equal(logged.length, 0);
    logRate = 1;
    const sampled = await fetch(url, { headers: { 'if-none-match': validators.etag } });
    assert.match(String(sampled.headers.get('x-request-id')), /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      logged.map(({ reqId, url: path }) => [reqId, path]),
      [[sampled.headers.get('x-request-id'), '/api/v1/apps.json']],
    );
    const stale = await fetch(url, { headers: { 'if-none-match': '"i-6-apps"' } });
    assert.equal(stale.status, 404, 'another ETag goes to the routes');
  } finally {
    server.close();
  }
});

/** Sends raw requests on one connection and resolves with everything the server sent once it has `count` answers (or closed). */
function rawExchange(port: number, requests: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(requests));
    socket.setEncoding('latin1');
    const answers = (): number => received.split('HTTP/1.').length - 1;
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (answers() >= count && received.endsWith('\r\n\r\n')) socket.end();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

test('the 304 made whole is byte for byte what writeHead sends, and the connection stays open for the next poll', async () => {
  const validators: Validators = {
    etag: '"i-8-apps"',
    changedAt: new Date('2026-11-01T10:00:00Z'),
    stamp: { instanceId: 'i', version: 8, changedAt: new Date('2026-11-01T10:00:00Z') },
    day: '2026-11-26',
  };
  const listings = { validatorsOf: () => validators, stillValid: (held: Validators) => held === validators };
  const server = http.createServer();
  server.keepAliveTimeout = 75_000;
  const fastPath = notModifiedFastPath(listings, {
    logRate: 0,
    log: () => undefined,
    keepAliveTimeoutMs: server.keepAliveTimeout,
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (!fastPath.answer(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const poll = (extra = '', version = '1.1'): string =>
    `GET /api/v1/apps.json HTTP/${version}\r\nHost: store\r\nIf-None-Match: ${validators.etag}\r\n${extra}\r\n`;
  const withoutDate = (answer: string): string => answer.replace(/\r\nDate: [^\r]+/g, '');
  try {
    // Two polls and a third request on one connection: both 304s whole, the connection kept.
    const kept = await rawExchange(
      port,
      poll() + poll() + 'GET /elsewhere HTTP/1.1\r\nHost: store\r\nConnection: close\r\n\r\n',
      3,
    );
    const answers = kept.split(/(?=HTTP\/1\.1 )/);
    assert.equal(answers.length, 3, kept);
    assert.match(answers[0] ?? '', /\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/);
    // What Node itself writes for the same 304 (an X-Request-Id sends it through writeHead): the same bytes but that header.
    const viaWriteHead = await rawExchange(port, poll('X-Request-Id: compare-1\r\nConnection: keep-alive\r\n'), 1);
    assert.equal(withoutDate(answers[0] ?? ''), withoutDate(viaWriteHead).replace('x-request-id: compare-1\r\n', ''));
    assert.equal(withoutDate(answers[1] ?? ''), withoutDate(answers[0] ?? ''));
    assert.match(
      answers[0] ?? '',
      /^HTTP\/1\.1 304 Not Modified\r\netag: "i-8-apps"\r\n[^]*Connection: keep-alive\r\nKeep-Alive: timeout=75\r\n\r\n$/,
    );
    assert.match(answers[2] ?? '', /^HTTP\/1\.1 404 /, 'the connection served the next request');
    // A poll that asks to close, or HTTP/1.0, gets writeHead's answer, which closes.
    const closing = await rawExchange(port, poll('Connection: close\r\n'), 1);
    assert.match(closing, /^HTTP\/1\.1 304 Not Modified\r\n[^]*Connection: close\r\n\r\n$/);
    const old = await rawExchange(port, poll('', '1.0'), 1);
    assert.match(old, /^HTTP\/1\.1 304 Not Modified\r\n[^]*Connection: close\r\n\r\n$/);
  } finally {
    server.close();
  }
});

test('a header Node would refuse is never written whole: the fast path leaves that request to the routes', () => {
  const validators: Validators = {
    etag: '"i-9-apps"\r\nSet-Cookie: x=1',
    changedAt: new Date('2026-11-01T10:00:00Z'),
    stamp: { instanceId: 'i', version: 9, changedAt: new Date('2026-11-01T10:00:00Z') },
    day: '2026-11-26',
  };
  const fastPath = notModifiedFastPath(
    { validatorsOf: () => validators, stillValid: (held: Validators) => held === validators },
    { logRate: 0, log: () => undefined, keepAliveTimeoutMs: 5000 },
  );
  const request = {
    method: 'GET',
    url: '/api/v1/apps.json',
    headers: { 'if-none-match': validators.etag },
    httpVersionMajor: 1,
    httpVersionMinor: 1,
  } as unknown as http.IncomingMessage;
  let written = false;
  const response = {
    shouldKeepAlive: true,
    writeHead: () => (written = true),
    end: () => (written = true),
  } as unknown as http.ServerResponse;
  assert.equal(fastPath.answer(request, response), false);
  assert.equal(written, false);
});
