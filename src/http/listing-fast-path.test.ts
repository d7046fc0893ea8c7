import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Validators } from '../domain/listings/listings.ts';
import { listingOf, notModifiedFastPath } from './listing-fast-path.ts';

test('listingOf: the listing each polled address names, as the routes read it', () => {
  assert.deepEqual(listingOf('/api/v1/apps.json'), { kind: 'apps', includeEnterprise: false });
  assert.deepEqual(listingOf('/api/v1/apps.json?include_enterprise=TRUE'), { kind: 'apps', includeEnterprise: true });
  assert.deepEqual(listingOf('/api/v1/platform/31.0.0/apps.json'), { kind: 'apps', includeEnterprise: false, platform: '31.0.0' });
  assert.deepEqual(listingOf('/api/v1/appapi_apps.json'), { kind: 'apps', includeEnterprise: false, exApps: true });
  assert.deepEqual(listingOf('/api/v1//appapi_apps.json/?include_enterprise=1'), { kind: 'apps', includeEnterprise: true, exApps: true });
  assert.deepEqual(listingOf('/api/v1/discover.json'), { kind: 'discover' });
  assert.deepEqual(listingOf('/api/v1/categories.json'), { kind: 'categories' });
  assert.equal(listingOf('/api/v1/platform/31/apps.json'), null, 'not a platform version the route takes');
  assert.equal(listingOf('/api/v1/apps.json?include_enterprise=1&include_enterprise=0'), null, 'repeated: the route refuses it');
  assert.equal(listingOf('/api/v1/discover'), null);
});

test("a 304 before routing carries the caller's request id, or the logged one's, and no made-up id otherwise", async () => {
  const validators: Validators = { etag: '"i-7-apps"', changedAt: new Date('2026-11-01T10:00:00Z'), stamp: { instanceId: 'i', version: 7, changedAt: new Date('2026-11-01T10:00:00Z') }, day: '2026-11-26' };
  const listings = { validatorsOf: () => validators, stillValid: (held: Validators) => held === validators };
  const logged: { reqId: string; url: string }[] = [];
  let logRate = 0;
  const server = http.createServer((request, response) => {
    const fastPath = notModifiedFastPath(listings, { logRate, log: (entry) => logged.push(entry) });
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
    assert.deepEqual(logged.map(({ reqId, url: path }) => [reqId, path]), [[sampled.headers.get('x-request-id'), '/api/v1/apps.json']]);
    const stale = await fetch(url, { headers: { 'if-none-match': '"i-6-apps"' } });
    assert.equal(stale.status, 404, 'another ETag goes to the routes');
  } finally {
    server.close();
  }
});
