import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { CATEGORIES, PLATFORMS } from '../helpers/catalog-data.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

describe(`categories.json and platforms.json (${DIALECT})`, () => {
  let server: TestServer;
  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.close());

  test('empty store: both listings are [] with an ETag', async () => {
    for (const url of ['/api/v1/categories.json', '/api/v1/platforms.json']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '[]');
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.match(String(response.headers.etag), /^"[A-Za-z0-9._-]+"$/);
    }
  });

  test('after import: categories ordered by id with their languages; supported platforms only', async () => {
    await importCategories(CATEGORIES, TEST_ACTING, server.container.catalog);
    await importPlatformReleases(PLATFORMS, TEST_ACTING, server.container.catalog);
    const categories = await get('/api/v1/categories.json');
    assert.deepEqual(categories.json(), [
      {
        id: 'games',
        translations: {
          de: { name: 'Spiele', description: 'Spaß' },
          en: { name: 'Games', description: 'Fun and games' },
        },
      },
      {
        id: 'tools',
        translations: { en: { name: 'Tools', description: '' }, fr: { name: 'Outils', description: '' } },
      },
    ]);
    const platforms = await get('/api/v1/platforms.json');
    assert.deepEqual(platforms.json(), [
      { version: '31.0.0', hasRelease: false, isSupported: true },
      { version: '30.0.1', hasRelease: true, isSupported: true },
    ]);
  });

  test('the ETag is stable across reads and different per listing', async () => {
    const a = await get('/api/v1/categories.json');
    const b = await get('/api/v1/categories.json');
    const p = await get('/api/v1/platforms.json');
    assert.equal(a.headers.etag, b.headers.etag);
    assert.notEqual(a.headers.etag, p.headers.etag);
  });

  test('If-None-Match: exact, weak and * give 304 with the ETag and no body; a stale tag gives 200', async () => {
    const first = await get('/api/v1/categories.json');
    const etag = String(first.headers.etag);
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await get('/api/v1/categories.json', { 'if-none-match': value });
      assert.equal(response.statusCode, 304, value);
      assert.equal(response.body, '');
      assert.equal(response.headers.etag, etag);
      assert.ok(response.headers['last-modified']);
    }
    const stale = await get('/api/v1/categories.json', { 'if-none-match': '"abc-1-categories"' });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.body, first.body);
  });

  test('Last-Modified and If-Modified-Since (only when If-None-Match is absent)', async () => {
    const first = await get('/api/v1/platforms.json');
    const lastModified = String(first.headers['last-modified']);
    assert.ok(!Number.isNaN(Date.parse(lastModified)));
    assert.equal((await get('/api/v1/platforms.json', { 'if-modified-since': lastModified })).statusCode, 304);
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    assert.equal((await get('/api/v1/platforms.json', { 'if-modified-since': earlier })).statusCode, 200);
    assert.equal((await get('/api/v1/platforms.json', { 'if-modified-since': 'not a date' })).statusCode, 200);
    const both = await get('/api/v1/platforms.json', { 'if-modified-since': lastModified, 'if-none-match': '"stale"' });
    assert.equal(both.statusCode, 200);
  });

  test('HEAD: the headers of GET, no body', async () => {
    const full = await get('/api/v1/categories.json');
    const head = await server.app.inject({ method: 'HEAD', url: '/api/v1/categories.json' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, full.headers.etag);
    assert.equal(head.headers['content-type'], full.headers['content-type']);
    assert.equal(head.headers['content-length'], full.headers['content-length']);
    const conditional = await server.app.inject({
      method: 'HEAD',
      url: '/api/v1/categories.json',
      headers: { 'if-none-match': String(full.headers.etag) },
    });
    assert.equal(conditional.statusCode, 304);
  });

  test('gzip and br bodies decode to the same JSON; Vary: Accept-Encoding', async () => {
    const plain = await get('/api/v1/categories.json');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
    const gz = await get('/api/v1/categories.json', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(Number(gz.headers['content-length']), gz.rawPayload.length);
    assert.equal(zlib.gunzipSync(gz.rawPayload).toString(), plain.body);
    const br = await get('/api/v1/categories.json', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), plain.body);
    assert.equal(br.headers.etag, plain.headers.etag, 'the ETag is strong and the same for every encoding');
  });

  test('a listing is rendered once per content version, not once per request', async () => {
    const cache = server.container.listings.cache;
    const rendered = await get('/api/v1/categories.json');
    const sizeBefore = cache.size;
    for (let i = 0; i < 5; i++)
      await get('/api/v1/categories.json', { 'accept-encoding': i % 2 === 0 ? 'br' : 'gzip' });
    assert.equal(cache.size, sizeBefore);
    const again = await get('/api/v1/categories.json');
    assert.equal(again.headers.etag, rendered.headers.etag);
  });

  test('a changed name changes the ETag; an identical re-import does not', async () => {
    const before = await get('/api/v1/categories.json');
    const same = await importCategories(CATEGORIES, TEST_ACTING, server.container.catalog);
    assert.deepEqual(same, { created: 0, updated: 0, unchanged: 2 });
    assert.equal((await get('/api/v1/categories.json')).headers.etag, before.headers.etag);
    const renamed = structuredClone(CATEGORIES);
    const german = renamed[1]?.translations.de;
    assert.ok(german !== undefined);
    german.name = 'Spiele & Spaß';
    const summary = await importCategories(renamed, TEST_ACTING, server.container.catalog);
    assert.deepEqual(summary, { created: 0, updated: 1, unchanged: 1 });
    const after = await get('/api/v1/categories.json', { 'if-none-match': String(before.headers.etag) });
    assert.equal(after.statusCode, 200);
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.equal(after.json()[0].translations.de.name, 'Spiele & Spaß');
  });

  test('a platform flag change shows at once', async () => {
    await importPlatformReleases(
      [{ version: '31.0.0', hasRelease: true, isSupported: true }],
      TEST_ACTING,
      server.container.catalog,
    );
    const platforms = await get('/api/v1/platforms.json');
    assert.deepEqual(platforms.json()[0], { version: '31.0.0', hasRelease: true, isSupported: true });
    await importPlatformReleases(
      [{ version: '30.0.1', hasRelease: true, isSupported: false }],
      TEST_ACTING,
      server.container.catalog,
    );
    assert.deepEqual(
      (await get('/api/v1/platforms.json')).json().map((p: { version: string }) => p.version),
      ['31.0.0'],
    );
  });

  test('doubled and trailing slashes are tolerated', async () => {
    const expected = (await get('/api/v1/categories.json')).body;
    for (const url of ['/api/v1//categories.json', '//api//v1//categories.json', '/api/v1/categories.json/']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, expected, url);
    }
  });

  test('CORS: any origin may read, ETag exposed, preflight answered', async () => {
    const response = await get('/api/v1/categories.json', { origin: 'https://example.org' });
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.match(String(response.headers['access-control-expose-headers']), /ETag/);
    const preflight = await server.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/categories.json',
      headers: {
        origin: 'https://example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-methods']), /GET/);
    assert.match(String(preflight.headers['access-control-allow-headers']), /If-None-Match/);
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    const unknown = await server.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/nothing.json',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    assert.equal(unknown.statusCode, 404);
  });
});
