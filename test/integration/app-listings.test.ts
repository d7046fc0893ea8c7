import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { addCoMaintainer, setAppFlags } from '../../src/domain/apps/manage-apps.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { AppSchema, RatingSchema, ReleaseSchema } from '../../src/domain/listings/listing-schemas.ts';
import { createUser } from '../helpers/accounts.ts';
import type { ManifestOptions } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { injectSend, publishFixtureRelease } from '../helpers/store-actions.ts';
import { brotliListing } from '../helpers/listing-bytes.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

type Json = Record<string, unknown> & { releases: Array<Record<string, unknown>> };

describe(`apps.json, platform listings and ratings (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  const clock = new TestClock('2026-06-01T12:00:00.000Z');
  const tokens: Record<string, string> = {};

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });
  const apps = async (url = '/api/v1/apps.json'): Promise<Json[]> => (await get(url)).json();
  async function publish(key: 'news' | 'notes', options: ManifestOptions, nightly = false): Promise<void> {
    const response = await publishFixtureRelease(injectSend(server.app), tokens.alice ?? '', files, {
      ...options,
      id: key,
      nightly,
    });
    assert.ok([200, 201].includes(response.status), response.text);
  }
  const rate = (who: string, app: string, body: Record<string, unknown>) =>
    server.app.inject({
      method: 'POST',
      url: `/api/v1/apps/${app}/ratings`,
      headers: { authorization: `Token ${tokens[who]}` },
      payload: body,
    });

  before(async () => {
    files = await startArchiveServer();
    // Brotli kept at any saving: these apps are mostly signatures, which brotli barely shrinks (the default keeps it only at a fifth).
    server = await createTestServer({
      now: clock.now,
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_LISTING_BROTLI_MIN_SAVING: '0',
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    for (const name of ['alice', 'bob', 'carol', 'dave'])
      tokens[name] = await getOrCreateToken(
        await createUser(server.container, name, null),
        TEST_ACTING,
        server.container.accounts,
      );
    for (const cert of ['news', 'notes']) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps',
        headers: { authorization: `Token ${tokens.alice}` },
        payload: { certificate: readCert(`${cert}.crt`).replace(/\r?\n/g, '\n'), signature: readCert(`${cert}.sig`) },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
    // The example data of the original's compatibility tests (reference §12.10).
    const news: Array<[string, [string, string], boolean?]> = [
      ['1.0.0', ['9', '9']],
      ['2.0.0', ['9.0.5', '10.0.4']],
      ['3.0.0', ['10', '11']],
      ['4.0.0', ['11', '99']],
      ['5.0.0', ['12', '99']],
      ['6.0.0-alpha', ['12', '99']],
      ['6.0.0', ['12', '99'], true],
    ];
    for (const [version, nextcloud, nightly] of news)
      await publish('news', { version, nextcloud, name: `News ${version}` }, nightly ?? false);
    for (const [version, nextcloud] of [
      ['1.0.0', ['9', '9']],
      ['2.0.0', ['10', '10']],
      ['3.0.0', ['11', '11']],
      ['4.0.0', ['11', '11']],
    ] as const) {
      await publish('notes', {
        id: 'notes',
        version,
        nextcloud,
        name: 'Notes',
        extra: '<description lang="de">Notizen</description>',
      });
    }
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('every field of every app and release, with its exact type', async () => {
    const listed = await apps();
    assert.deepEqual(
      listed.map((a) => a.id),
      ['news', 'notes'],
    );
    // Every app has these; the status fields only where set (issue 52: tested in app-status.test.ts).
    const appKeys: string[] = [...(AppSchema.required ?? [])].sort();
    assert.deepEqual(
      Object.keys(AppSchema.properties)
        .filter((key) => !appKeys.includes(key))
        .sort(),
      ['deprecationReason', 'isDeprecated', 'isOrphan', 'retiredReleases', 'successor'],
    );
    // apps.json's releases: every field but the AppAPI ones (appapi_apps.json only, tested in exapps.test.ts)
    // and provenance (only on releases published through trusted publishing, trusted-publishing.test.ts).
    const releaseKeys: string[] = [...(ReleaseSchema.required ?? [])].sort();
    assert.deepEqual(
      Object.keys(ReleaseSchema.properties)
        .filter((key) => !releaseKeys.includes(key))
        .sort(),
      ['aaIsSystem', 'apiScopes', 'deployMethods', 'environmentVariables', 'provenance'],
    );
    for (const app of listed) {
      assert.deepEqual(Object.keys(app).sort(), appKeys, `${app.id}: fields`);
      assert.ok(Value.Check(AppSchema, { ...app, releases: [] }), `${app.id}: types`);
      for (const release of app.releases) {
        assert.deepEqual(Object.keys(release).sort(), releaseKeys);
        assert.ok(Value.Check(ReleaseSchema, release), JSON.stringify(release));
      }
    }
    const news = listed[0] as Json;
    assert.equal(news.releases.length, 7);
    assert.deepEqual(
      news.releases.map((r) => `${r.version}${r.isNightly === true ? ' nightly' : ''}`),
      ['6.0.0 nightly', '6.0.0-alpha', '5.0.0', '4.0.0', '3.0.0', '2.0.0', '1.0.0'],
    );
    const five = news.releases.find((r) => r.version === '5.0.0') as Record<string, unknown>;
    assert.equal(five.isNightly, false);
    assert.equal(five.minIntSize, 32);
    assert.equal(five.rawPlatformVersionSpec, '>=12 <=99');
    assert.equal(five.platformVersionSpec, '>=12.0.0 <100.0.0');
    assert.equal(five.signatureDigest, 'sha512');
    assert.match(String(five.created), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual(five.translations, { en: { changelog: '- this release' } });
    assert.deepEqual(five.licenses, ['AGPL-3.0-or-later']);
    assert.equal(
      (news.translations as Record<string, { name: string }>).en?.name,
      'News 5.0.0',
      'app data from the latest stable release',
    );
    assert.equal(news.isFeatured, false);
    assert.match(String(news.certificate), /^-----BEGIN CERTIFICATE-----\r\n/);
    assert.doesNotMatch(String(news.certificate).replace(/\r\n/g, ''), /\n/, 'CR LF line separators');
    assert.deepEqual(
      [news.ratingOverall, news.ratingNumOverall, news.ratingRecent, news.ratingNumRecent],
      [0.5, 0, 0.5, 0],
    );
    assert.equal(news.website, '');
  });

  test('missing translations fall back to English', async () => {
    const notes = (await apps()).find((a) => a.id === 'notes') as Json;
    assert.deepEqual(notes.translations, {
      de: { name: 'Notes', summary: 'A feed reader', description: 'Notizen' },
      en: { name: 'Notes', summary: 'A feed reader', description: 'An RSS/Atom feed reader' },
    });
  });

  test("platform listings: the original's compatibility table", async () => {
    const count = async (v: string) =>
      (await apps(`/api/v1/platform/${v}/apps.json`)).map(
        (a) => `${a.id}:${a.releases.map((r) => r.version).join(',')}`,
      );
    assert.deepEqual(await count('12.0.0'), ['news:6.0.0,6.0.0-alpha,5.0.0,4.0.0']);
    assert.deepEqual(await count('11.0.0'), ['news:4.0.0,3.0.0', 'notes:4.0.0,3.0.0']);
    assert.deepEqual(await count('10.0.0'), ['news:3.0.0,2.0.0', 'notes:2.0.0']);
    assert.deepEqual(await count('9.0.0'), ['news:1.0.0', 'notes:1.0.0']);
    assert.deepEqual(await count('9.0.5'), ['news:2.0.0,1.0.0', 'notes:1.0.0']);
    assert.deepEqual(await count('200.0.0'), []);
  });

  test('a platform version that is not X.Y.Z: 400', async () => {
    for (const v of ['9.1', '9.1.0.1', 'latest', '09.0.0']) {
      const response = await get(`/api/v1/platform/${v}/apps.json`);
      assert.equal(response.statusCode, 400, v);
      assert.equal(response.json().code, 'invalid_request');
    }
  });

  test('enterprise-only apps: out by default, in with include_enterprise=true or 1 (any case)', async () => {
    await setAppFlags('notes', { enterpriseOnly: true }, TEST_ACTING, server.container.appManagement);
    const ids = async (query: string) => (await apps(`/api/v1/apps.json${query}`)).map((a) => a.id);
    assert.deepEqual(await ids(''), ['news']);
    assert.deepEqual(await ids('?include_enterprise=yes'), ['news']);
    for (const query of ['?include_enterprise=true', '?include_enterprise=1', '?include_enterprise=TRUE'])
      assert.deepEqual(await ids(query), ['news', 'notes'], query);
    assert.deepEqual(
      (await apps('/api/v1/platform/11.0.0/apps.json?include_enterprise=1')).map((a) => a.id),
      ['news', 'notes'],
    );
    assert.deepEqual(
      (await apps('/api/v1/platform/11.0.0/apps.json')).map((a) => a.id),
      ['news'],
    );
    await setAppFlags('notes', { enterpriseOnly: false }, TEST_ACTING, server.container.appManagement);
  });

  test('ratings: one per user (201, then 200), maintainers refused, aggregates overall and over 90 days', async () => {
    assert.equal((await rate('alice', 'news', { rating: 1 })).statusCode, 403, 'the owner');
    assert.equal((await rate('carol', 'news', { rating: 1 })).statusCode, 403, 'a co-maintainer');
    assert.equal((await rate('bob', 'nope', { rating: 1 })).statusCode, 404);
    assert.equal((await rate('bob', 'news', { rating: 1.5 })).statusCode, 400);
    assert.equal(
      (await server.app.inject({ method: 'POST', url: '/api/v1/apps/news/ratings', payload: { rating: 1 } }))
        .statusCode,
      401,
    );
    clock.advance(-100 * 86_400_000); // 100 days ago
    assert.equal((await rate('bob', 'news', { rating: 0 })).statusCode, 201);
    clock.advance(100 * 86_400_000);
    assert.equal((await rate('dave', 'news', { rating: 1, comment: 'Sehr gut', language: 'de' })).statusCode, 201);
    let news = (await apps())[0] as Json;
    assert.deepEqual(
      [news.ratingOverall, news.ratingNumOverall, news.ratingRecent, news.ratingNumRecent],
      [0.5, 2, 1, 1],
    );
    clock.advance(60_000);
    assert.equal(
      (await rate('bob', 'news', { rating: 0.5, comment: 'Better now' })).statusCode,
      200,
      'replaces bob’s rating',
    );
    news = (await apps())[0] as Json;
    assert.deepEqual(
      [news.ratingOverall, news.ratingNumOverall, news.ratingRecent, news.ratingNumRecent],
      [0.75, 2, 0.75, 2],
    );
    const ratings = (await get('/api/v1/ratings.json')).json() as Array<Record<string, unknown>>;
    assert.equal(ratings.length, 2);
    for (const rating of ratings) assert.ok(Value.Check(RatingSchema, rating), JSON.stringify(rating));
    assert.deepEqual(
      ratings.map((r) => r.translations as Record<string, { comment: string }>),
      [{ en: { comment: 'Better now' } }, { de: { comment: 'Sehr gut' } }],
      'newest first',
    );
    assert.deepEqual(ratings[1]?.user, {
      id: (await server.container.accounts.store.findUserByUsername('dave'))?.id,
      firstName: 'dave',
      lastName: 'Tester',
    });
    assert.equal(ratings[0]?.app, 'news');
  });

  test('a comment that is not valid Unicode (a lone surrogate) is refused naming the field, and nothing is stored', async () => {
    const before = (await get('/api/v1/ratings.json')).json() as unknown[];
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/news/ratings',
      headers: { authorization: `Token ${tokens.bob}`, 'content-type': 'application/json' },
      payload: '{"rating": 1, "comment": "nice \\ud800 app"}',
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().code, 'invalid_request');
    assert.match(response.json().detail, /^Invalid request body: comment: The text is not valid Unicode/);
    assert.deepEqual(Object.keys(response.json().errors), ['comment']);
    assert.deepEqual((await get('/api/v1/ratings.json')).json(), before);
    const paired = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/news/ratings',
      headers: { authorization: `Token ${tokens.bob}`, 'content-type': 'application/json' },
      payload: '{"rating": 0.5, "comment": "Better now \\ud83d\\ude00"}',
    });
    assert.equal(paired.statusCode, 200, 'a surrogate pair is a valid character');
    const stored = (
      (await get('/api/v1/ratings.json')).json() as Array<{ translations: Record<string, { comment: string }> }>
    ).map((r) => r.translations['en']?.comment);
    assert.ok(stored.includes('Better now \u{1F600}'), JSON.stringify(stored));
  });

  test('the 90-day window moves with the clock, and the ETag with the day', async () => {
    const before = await get('/api/v1/apps.json');
    clock.advance(95 * 86_400_000);
    const after = await get('/api/v1/apps.json', { 'if-none-match': String(before.headers.etag) });
    assert.equal(after.statusCode, 200, 'a new day: new bytes possible, new ETag');
    const news = after.json()[0] as Json;
    assert.deepEqual([news.ratingNumOverall, news.ratingNumRecent], [2, 0]);
    clock.advance(-95 * 86_400_000);
  });

  test('deleting a rating', async () => {
    const del = () =>
      server.app.inject({
        method: 'DELETE',
        url: '/api/v1/apps/news/ratings',
        headers: { authorization: `Token ${tokens.dave}` },
      });
    assert.equal((await del()).statusCode, 204);
    assert.equal((await del()).statusCode, 404);
    assert.equal(((await apps())[0] as Json).ratingNumOverall, 1);
  });

  test('the ETag changes on every kind of write and stays on reads; 304, HEAD, gzip and br, CORS', async () => {
    const etag = async () => String((await get('/api/v1/apps.json')).headers.etag);
    const platformEtag = async () => String((await get('/api/v1/platform/12.0.0/apps.json')).headers.etag);
    let current = await etag();
    assert.equal(await etag(), current, 'reads do not change it');
    assert.notEqual(await platformEtag(), current, 'each listing has its own tag');
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a release', () => publish('news', { version: '7.0.0', nextcloud: ['12', '99'] })],
      ['a rating', () => rate('bob', 'news', { rating: 0.25 })],
      ['a featured flag', () => setAppFlags('news', { featured: true }, TEST_ACTING, server.container.appManagement)],
      [
        'a deleted release',
        () =>
          server.app.inject({
            method: 'DELETE',
            url: '/api/v1/apps/news/releases/7.0.0',
            headers: { authorization: `Token ${tokens.alice}` },
          }),
      ],
    ];
    for (const [what, change] of changes) {
      await change();
      const next = await etag();
      assert.notEqual(next, current, `${what} changes the ETag`);
      current = next;
    }
    assert.equal(((await apps())[0] as Json).isFeatured, true);
    const notModified = await get('/api/v1/apps.json', { 'if-none-match': current });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    const head = await server.app.inject({ method: 'HEAD', url: '/api/v1/apps.json' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    const plain = await get('/api/v1/apps.json');
    const gz = await get('/api/v1/apps.json', { 'accept-encoding': 'gzip' });
    // Brotli is made in the background once asked for; the JSON text is served meanwhile.
    const br = await brotliListing(server, '/api/v1/apps.json');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gz.rawPayload).toString()), plain.json());
    assert.deepEqual(JSON.parse(br.toString()), plain.json());
    assert.equal(plain.headers['access-control-allow-origin'], '*');
    assert.equal((await get('/api/v1//apps.json')).statusCode, 200, 'a trailing slash in appstoreurl');
  });

  test('another server on the same database serves a write, without a database read per request', async () => {
    const other = await createTestServer({
      now: clock.now,
      env: { APPSTORE_CA_CERT: certFile('chain.pem') },
      database: server.database,
    });
    const before = await other.app.inject({ method: 'GET', url: '/api/v1/apps.json' });
    await setAppFlags('news', { featured: false }, TEST_ACTING, server.container.appManagement);
    // The other server hears of the write by LISTEN/NOTIFY (PostgreSQL) or its poll (SQLite, every
    // 500 ms): waited for, however long a loaded machine takes (the runner's timeout is the limit).
    const after = await eventually(async () => {
      const answer = await other.app.inject({
        method: 'GET',
        url: '/api/v1/apps.json',
        headers: { 'if-none-match': String(before.headers.etag) },
      });
      assert.equal(answer.statusCode, 200, 'the other server still answers 304: it has not heard of the write');
      return answer;
    });
    assert.equal((after.json()[0] as Json).isFeatured, false);
    assert.equal(
      after.headers.etag,
      (await get('/api/v1/apps.json')).headers.etag,
      'both nodes give the same ETag for the same state',
    );
    await other.app.close();
  });
});
