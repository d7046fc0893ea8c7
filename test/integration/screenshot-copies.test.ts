import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import {
  importTestCategories,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
  userWithToken,
} from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { imageTypeOf } from '../../src/domain/screenshots/screenshot-copies.ts';
import { createUser } from '../helpers/accounts.ts';
import { WebClient } from '../helpers/web-client.ts';

/** A PNG of this size, drawn now (the fixtures of this test are made by the test itself). */
const png = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .png()
    .toBuffer();

/** Screenshots through the store (issue 54 §3): copied, checked, served with a thumbnail; no third-party image. */
describe(`screenshots through the store (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let big: Buffer;
  let aliceToken = '';

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_SCREENSHOTS_ALLOW_PRIVATE: '1',
      },
      downloadCa: [TEST_TLS_CA],
    });
    const send = injectSend(server.app);
    await importTestCategories(server.container);
    const token = await userWithToken(server.container, 'alice');
    aliceToken = token;
    await registerFixtureApp(send, token, 'news');
    big = await png(1600, 1000);
    files.serve('/shots/main.png', big);
    files.serve('/shots/page.html', Buffer.from('<!doctype html><script>alert(1)</script>'));
    files.serve(
      '/shots/svg.png',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    );
    files.serve('/shots/tall.png', await png(20, 12_000));
    // A photo as a phone writes it: sideways, turned upright by EXIF, with where and by whom.
    files.serve(
      '/shots/camera.jpg',
      await sharp({ create: { width: 60, height: 30, channels: 3, background: { r: 200, g: 40, b: 40 } } })
        .withExif({ IFD0: { Artist: 'Alice Private', Copyright: 'Taken at 52.5200N 13.4050E' } })
        .withMetadata({ orientation: 6 })
        .jpeg()
        .toBuffer(),
    );
    const published = await publishFixtureRelease(send, token, files, {
      id: 'news',
      version: '1.0.0',
      screenshots: [
        `${files.origin}/shots/main.png`,
        `${files.origin}/shots/page.html`,
        `${files.origin}/shots/svg.png`,
        `${files.origin}/shots/tall.png`,
        `${files.origin}/shots/missing.png`,
        `${files.origin}/shots/camera.jpg`,
      ],
    });
    assert.equal(published.status, 201, published.text);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('image types are told by their bytes', () => {
    assert.equal(imageTypeOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'png');
    assert.equal(imageTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
    assert.equal(imageTypeOf(Buffer.from('GIF89a....')), 'gif');
    assert.equal(imageTypeOf(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'webp');
    assert.equal(imageTypeOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), null);
    assert.equal(imageTypeOf(Buffer.from('')), null);
  });

  test('before a copy exists, the pages show no screenshot at all: nothing from another host', async () => {
    const page = await server.app.inject({ method: 'GET', url: '/apps/news', headers: { accept: 'text/html' } });
    assert.doesNotMatch(page.body, /<img[^>]+src="https:/);
    assert.match(String(page.headers['content-security-policy']), /img-src 'self' data:;/);
  });

  test('a sweep copies what may be copied and records why the rest may not', async () => {
    await server.container.screenshots.sweep();
    const store = server.container.screenshots.deps.store;
    const copies = await store.copies();
    const main = copies.get(`${files.origin}/shots/main.png`);
    assert.ok(main !== undefined && main.sha256 !== null && main.thumbnailSha256 !== null);
    assert.equal(main.format, 'png');
    assert.deepEqual([main.width, main.height], [1600, 1000]);
    assert.equal([...copies.values()].filter((copy) => copy.problem === null).length, 2, 'only the two images');
    const rows = await server.container.database.db.selectFrom('screenshot_copies').selectAll().execute();
    const problem = (name: string) => rows.find((row) => row.url.endsWith(name))?.problem ?? '';
    assert.match(problem('page.html'), /not a PNG, JPEG, GIF or WebP/);
    assert.match(problem('svg.png'), /not a PNG, JPEG, GIF or WebP/, 'the name does not make it a PNG');
    assert.match(problem('tall.png'), /12000 pixels|longer than 10000/);
    assert.match(problem('missing.png'), /404/);
    // Refused ones are not tried again within a day.
    assert.deepEqual(await store.missing(new Date(Date.now() - 86_400_000), 10), []);
  });

  test('the app page and the cards show the store’s copies; the listing keeps the developer’s addresses', async () => {
    const copies = await server.container.screenshots.deps.store.copies();
    const main = copies.get(`${files.origin}/shots/main.png`);
    assert.ok(main?.sha256 && main.thumbnailSha256);
    // The page's list of copies is kept a few seconds: a fresh one is read after a sweep that copied.
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news', headers: { accept: 'text/html' } })).body;
    assert.match(
      page,
      new RegExp(`<a href="/screenshots/${main.sha256}\\.png"><img src="/screenshots/${main.thumbnailSha256}\\.webp"`),
    );
    assert.doesNotMatch(page, /<img[^>]+src="https?:/, 'no image from another host');
    const home = (await server.app.inject({ method: 'GET', url: '/search', headers: { accept: 'text/html' } })).body;
    assert.match(home, new RegExp(`<img class="card-shot" src="/screenshots/${main.thumbnailSha256}\\.webp"`));
    const apps = (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).json() as Array<{
      id: string;
      screenshots: Array<{ url: string }>;
    }>;
    assert.equal(apps.find((app) => app.id === 'news')?.screenshots[0]?.url, `${files.origin}/shots/main.png`);
  });

  test('served with long cache headers, as the type they were checked to be; a thumbnail the store made', async () => {
    const main = (await server.container.screenshots.deps.store.copies()).get(`${files.origin}/shots/main.png`);
    assert.ok(main?.sha256 && main.thumbnailSha256);
    const image = await server.app.inject({ method: 'GET', url: `/screenshots/${main.sha256}.png` });
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/png');
    assert.equal(image.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(image.headers['x-content-type-options'], 'nosniff');
    assert.match(String(image.headers['content-security-policy']), /sandbox/);
    assert.ok(image.rawPayload.equals(big));
    const thumbnail = await server.app.inject({ method: 'GET', url: `/screenshots/${main.thumbnailSha256}.webp` });
    assert.equal(thumbnail.headers['content-type'], 'image/webp');
    const meta = await sharp(thumbnail.rawPayload).metadata();
    assert.equal(meta.format, 'webp');
    assert.deepEqual([meta.width, meta.height], [480, 300]);
    const notModified = await server.app.inject({
      method: 'GET',
      url: `/screenshots/${main.sha256}.png`,
      headers: { 'if-none-match': `"${main.sha256}"` },
    });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.headers['content-length'], undefined, 'a 304 gives no body length');
    assert.equal(
      (await server.app.inject({ method: 'GET', url: `/screenshots/${'0'.repeat(64)}.png` })).statusCode,
      404,
    );
    assert.equal((await server.app.inject({ method: 'GET', url: `/screenshots/${main.sha256}.svg` })).statusCode, 400);
  });

  test('a photo is kept upright and without its EXIF: where, and by whom, it was taken stays with its author', async () => {
    const camera = (await server.container.screenshots.deps.store.copies()).get(`${files.origin}/shots/camera.jpg`);
    assert.ok(camera?.sha256, 'copied');
    assert.equal(camera.format, 'jpeg');
    assert.deepEqual([camera.width, camera.height], [30, 60], 'turned as its EXIF said');
    const served = await server.app.inject({ method: 'GET', url: `/screenshots/${camera.sha256}.jpg` });
    assert.equal(served.statusCode, 200);
    const meta = await sharp(served.rawPayload).metadata();
    assert.deepEqual(
      [meta.width, meta.height, meta.exif, meta.xmp, meta.orientation],
      [30, 60, undefined, undefined, undefined],
    );
    for (const secret of ['Alice Private', '52.5200N']) assert.ok(!served.rawPayload.includes(secret), secret);
    // The PNG without metadata is served as it was fetched, byte for byte (asserted above).
  });

  test('the archive check names the copies: they are never pruned as orphans', async () => {
    const main = (await server.container.screenshots.deps.store.copies()).get(`${files.origin}/shots/main.png`);
    const named = await server.container.keptArchives.archives.references.all();
    assert.ok(main?.sha256 && named.has(main.sha256) && main.thumbnailSha256 && named.has(main.thumbnailSha256));
  });

  test('the manage page tells the developer what became of each screenshot, and why one was refused', async () => {
    await createUser(server.container, 'root', 'root password is long', { isAdmin: true });
    const web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'root', password: 'root password is long', next: '/' });
    const page = (await web.get('/developer/apps/news')).body;
    assert.match(page, /<h2 id="screenshots">Screenshots<\/h2>/);
    assert.match(page, /shots\/main\.png<\/code>: <img class="icon" src="\/screenshots\/[0-9a-f]{64}\.webp"/);
    assert.match(
      page,
      /shots\/page\.html<\/code>: <strong>not copied[^<]*<\/strong> <span lang="en" dir="ltr">not a PNG, JPEG, GIF or WebP/,
    );
  });

  test('a screenshot no app lists any more is no longer served, nor kept', async () => {
    const main = (await server.container.screenshots.deps.store.copies()).get(`${files.origin}/shots/main.png`);
    assert.ok(main?.sha256);
    // A new release without screenshots replaces the app's texts: the old screenshot is gone from it.
    const published = await publishFixtureRelease(injectSend(server.app), aliceToken, files, {
      id: 'news',
      version: '1.1.0',
    });
    assert.equal(published.status, 201, published.text);
    assert.equal((await server.app.inject({ method: 'GET', url: `/screenshots/${main.sha256}.png` })).statusCode, 404);
    const named = await server.container.keptArchives.archives.references.all();
    assert.ok(!named.has(main.sha256), 'an orphan now: the archive check may prune it');
  });
});
