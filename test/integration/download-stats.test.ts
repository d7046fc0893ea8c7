import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';
import { dayOf } from '../../src/domain/archives/download-counter.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { WebClient } from '../helpers/web-client.ts';
import { weekStart } from '../../src/domain/archives/download-weeks.ts';
import { shortDate } from '../../src/web/catalog-display.ts';
import { importTestCategories } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const ENV = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' };

/**
 * Download statistics (issue 52): each archive the store serves whole, or from its first byte, is
 * counted per release and day, in batches (no write per download), none lost at SIGTERM, right
 * with several nodes; `GET /api/v1/apps/{id}/downloads` answers as the original's.
 */
describe(`download statistics (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  const tokens: Record<string, string> = {};

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({ env: ENV, downloadCa: [TEST_TLS_CA] });
    await importTestCategories(server.container);
    for (const name of ['alice', 'carol', 'stranger'])
      tokens[name] = await getOrCreateToken(
        await createUser(server.container, name, name === 'carol' ? 'carol password here' : null),
        TEST_ACTING,
        server.container.accounts,
      );
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${tokens['alice']}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
    for (const version of ['0.9.0', '1.0.0']) {
      const bytes = await appArchive({ version });
      files.serve(`/news-${version}.tar.gz`, bytes);
      const published = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/releases',
        headers: { authorization: `Token ${tokens['alice']}` },
        payload: { download: `${files.origin}/news-${version}.tar.gz`, signature: signWith('news', bytes) },
      });
      assert.equal(published.statusCode, 201, published.body);
    }
    // 0.9.0 as published before the store kept archives: its developer's URL listed, not counted.
    await server.container.database.db
      .updateTable('releases')
      .set({ download: `${files.origin}/news-0.9.0.tar.gz`, developer_download: null })
      .where('version', '=', '0.9.0')
      .execute();
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    server.app.inject({ method, url, headers });
  const stats = (who: string | null, query = '', app = 'news') =>
    get(`/api/v1/apps/${app}/downloads${query}`, who === null ? {} : { authorization: `Token ${tokens[who]}` });
  const ARCHIVE = '/api/v1/archives/news/1.0.0.tar.gz';

  test('a whole download and a range from byte 0 count; HEAD, a later range and a 304 do not; written in a batch', async () => {
    const { counter } = server.container.downloads;
    assert.equal((await get(ARCHIVE)).statusCode, 200);
    assert.equal((await get(ARCHIVE, { range: 'bytes=0-99' })).statusCode, 206);
    assert.equal((await get(ARCHIVE, { range: 'bytes=100-' })).statusCode, 206);
    assert.equal((await get(ARCHIVE, {}, 'HEAD')).statusCode, 200);
    const etag = String((await get(ARCHIVE, {}, 'HEAD')).headers.etag);
    assert.equal((await get(ARCHIVE, { 'if-none-match': etag })).statusCode, 304);
    assert.equal(counter.unwritten, 2, 'two downloads, in memory');
    const rows = () => server.container.database.db.selectFrom('release_download_days').selectAll().execute();
    assert.deepEqual(await rows(), [], 'a download writes nothing of its own');
    await counter.flush();
    assert.equal(counter.unwritten, 0);
    assert.deepEqual(
      (await rows()).map((r) => ({ day: r.day, count: Number(r.count) })),
      [{ day: dayOf(new Date()), count: 2 }],
    );
  });

  test("the route answers as the original's: owner, co-maintainer (Basic), 401, 403, 404; null where not counted", async () => {
    const owner = await stats('alice');
    assert.equal(owner.statusCode, 200, owner.body);
    assert.deepEqual(owner.json(), [
      {
        version: '1.0.0',
        isNightly: false,
        download: 'http://127.0.0.1:8000/api/v1/archives/news/1.0.0.tar.gz',
        downloadCount: 2,
      },
      { version: '0.9.0', isNightly: false, download: `${files.origin}/news-0.9.0.tar.gz`, downloadCount: null },
    ]);
    const basic = await get('/api/v1/apps/news/downloads', {
      authorization: `Basic ${Buffer.from('carol:carol password here').toString('base64')}`,
    });
    assert.equal(basic.statusCode, 200, basic.body);
    assert.equal((await stats(null)).statusCode, 401);
    const stranger = await stats('stranger');
    assert.equal(stranger.statusCode, 403);
    assert.match(stranger.json().detail, /owner and co-maintainers of news/);
    assert.equal((await stats('alice', '', 'nonexistent')).statusCode, 404);
    assert.equal((await stats(null, '', 'nonexistent')).statusCode, 401, 'authentication first, as the original');
  });

  test('?days=N adds the days with downloads; a bad N is a 400 naming it', async () => {
    const series = await stats('alice', '?days=7');
    assert.equal(series.statusCode, 200, series.body);
    const [latest, older] = series.json() as Array<{ downloadsByDay: unknown }>;
    assert.deepEqual(latest?.downloadsByDay, [{ date: dayOf(new Date()), count: 2 }]);
    assert.deepEqual(older?.downloadsByDay, []);
    for (const bad of ['?days=0', '?days=400', '?days=week']) {
      const refused = await stats('alice', bad);
      assert.equal(refused.statusCode, 400, bad);
      assert.match(refused.json().detail, /days/);
    }
  });

  test('two nodes count into one store: every download once; a release deleted meanwhile is skipped', async () => {
    const second = await createTestServer({ env: ENV, database: server.database });
    try {
      const downloads = [server, second, server, second, second].map((node) => node.app.inject({ url: ARCHIVE }));
      for (const response of await Promise.all(downloads)) assert.equal(response.statusCode, 200);
      // At once on PostgreSQL, as nodes do; one after the other on SQLite (one process per store there).
      const flushes = [server, second].map((node) => () => node.container.downloads.counter.flush());
      if (DIALECT === 'postgres') await Promise.all(flushes.map((flush) => flush()));
      else for (const flush of flushes) await flush();
      const [entry] = (await stats('alice')).json() as Array<{ downloadCount: number }>;
      assert.equal(entry?.downloadCount, 7);

      const bytes = await appArchive({ version: '1.1.0' });
      files.serve('/news-1.1.0.tar.gz', bytes);
      const published = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/releases',
        headers: { authorization: `Token ${tokens['alice']}` },
        payload: { download: `${files.origin}/news-1.1.0.tar.gz`, signature: signWith('news', bytes) },
      });
      assert.equal(published.statusCode, 201);
      assert.equal((await second.app.inject({ url: '/api/v1/archives/news/1.1.0.tar.gz' })).statusCode, 200);
      const deleted = await server.app.inject({
        method: 'DELETE',
        url: '/api/v1/apps/news/releases/1.1.0',
        headers: { authorization: `Token ${tokens['alice']}` },
      });
      assert.equal(deleted.statusCode, 204);
      await second.container.downloads.counter.flush();
      assert.equal(second.container.downloads.counter.unwritten, 0, 'written (as nothing), not kept forever');
    } finally {
      // Its database is the first's: only its server goes.
      await second.app.close();
    }
  });

  test('the manage page draws weeks and releases (SVG, a table for screen readers); the app page shows the total', async () => {
    const web = new WebClient(server.app);
    await web.get('/account/login');
    const signedIn = await web.post('/account/login', {
      username: 'carol',
      password: 'carol password here',
      next: '/developer',
    });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const page = await web.get('/developer/apps/news');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<svg viewBox="0 0 600 190" aria-hidden="true" focusable="false">/);
    assert.match(page.body, /<caption>Downloads per week<\/caption>/);
    assert.match(page.body, /GET \/api\/v1\/apps\/news\/downloads\?days=84/);
    const thisWeek = shortDate(weekStart(new Date()).toISOString(), 'en');
    assert.match(page.body, new RegExp(`<th scope="row">${thisWeek}</th><td>7</td>`));
    assert.match(page.body, /<caption>Downloads by release<\/caption>.*<th scope="row">1\.0\.0<\/th><td>7<\/td>/s);
    assert.match(page.body, /not counted \(served by its developer’s host\)/, '0.9.0 in the releases table');
    const visitor = await get('/apps/news', { accept: 'text/html' });
    assert.match(visitor.body, /<dt>Downloads from this store<\/dt><dd>7<\/dd>/);
  });

  test('appstore serve (the bundle) writes what it counted when stopped with SIGTERM', async () => {
    const serve = await startServeProcess({ ...server.database.env, ...ENV });
    const before = Number(((await stats('alice')).json() as Array<{ downloadCount: number }>)[0]?.downloadCount);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${serve.url}${ARCHIVE}`);
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
    assert.equal(await serve.stop(), 0, serve.output());
    const after = Number(((await stats('alice')).json() as Array<{ downloadCount: number }>)[0]?.downloadCount);
    assert.equal(after - before, 3, 'none lost at SIGTERM');
  });
});
