import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { readRelease } from '../../src/domain/releases/read-release.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

/** One file of a .tar.gz, as text. */
async function readArchiveFile(archive: Buffer, name: string): Promise<string> {
  const extract = tar.extract();
  let found = '';
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        if (header.name === name) found = Buffer.concat(chunks).toString('utf8');
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  extract.end(zlib.gunzipSync(archive));
  await done;
  return found;
}

/** The app skeleton generator (issue 52): what it makes, the store accepts and publishes. */
describe(`the app skeleton generator (${DIALECT})`, () => {
  let server: TestServer;
  let web: WebClient;

  before(async () => {
    server = await createTestServer({ env: { APPSTORE_CA_CERT: certFile('chain.pem') } });
    await importCategories(
      ['tools', 'office'].map((id) => ({ id, translations: { en: { name: id.toUpperCase(), description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    await importPlatformReleases(
      ['31.0.4', '32.0.1', '33.0.0'].map((version) => ({ version, hasRelease: true, isSupported: true })),
      TEST_ACTING,
      server.container.catalog,
    );
    await createUser(server.container, 'gina', 'gina password here');
    web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'gina', password: 'gina password here', next: '/developer' });
  });
  after(() => server.close());

  test('the form offers the store’s categories and Nextcloud versions; refusals name the field', async () => {
    const page = await web.get('/developer/apps/generate');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<option value="tools"[^>]*>TOOLS<\/option>/);
    assert.match(page.body, /name="min" type="text" dir="auto" value="31"/);
    assert.match(page.body, /name="max" type="text" dir="auto" value="33"/);
    const refused = await web.post('/developer/apps/generate', {
      id: 'Bad-Id',
      name: 'X',
      author: 'Gina',
      category: 'tools',
      min: '33',
      max: '31',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /id="generate-id-error"/);
    assert.match(refused.body, /id="generate-max-error"/);
    assert.match(refused.body, /value="Bad-Id"/, 'what was typed stays');
  });

  test('the skeleton: a .tar.gz the release reader accepts, which publishes (201)', async () => {
    await web.get('/developer/apps/generate');
    const answer = await web.post('/developer/apps/generate', {
      id: 'news',
      name: 'News <& Friends>',
      summary: 'Reads feeds',
      author: 'Gina "G" Lopez',
      email: 'gina@example.org',
      category: 'office',
      min: '31',
      max: '33',
      bugs: '',
    });
    assert.equal(answer.statusCode, 200, answer.body.slice(0, 300));
    assert.equal(answer.headers['content-type'], 'application/gzip');
    assert.equal(answer.headers['content-disposition'], 'attachment; filename="news.tar.gz"');
    const bytes = answer.rawPayload;
    const readme = await readArchiveFile(bytes, 'news/README.md');
    assert.match(
      readme,
      /-F archive=@news\.tar\.gz -F signature="\$SIGNATURE" http:\/\/127\.0\.0\.1:8000\/api\/v1\/apps\/releases/,
    );
    const read = await readRelease(bytes, { nightly: false, validCategories: new Set(['tools', 'office']) });
    assert.equal(read.app.id, 'news');
    assert.equal(read.app.translations['en']?.name, 'News <& Friends>');
    assert.deepEqual(read.app.categories, ['office']);
    assert.equal(read.release.version, '0.1.0');
    assert.equal(read.release.rawPlatformVersionSpec, '>=31 <=33');
    assert.equal(read.app.issueTracker, 'http://127.0.0.1:8000/apps/news');
    assert.match(read.release.translations['en']?.changelog ?? '', /First release/);

    // Published as a developer would: registered with its certificate, uploaded with its signature.
    const gina = await server.container.accounts.store.findUserByUsername('gina');
    assert.ok(gina !== null);
    const token = await getOrCreateToken(gina, TEST_ACTING, server.container.accounts);
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    const form = multipartForm([
      { name: 'archive', value: bytes, filename: 'news.tar.gz' },
      { name: 'signature', value: signWith('news', bytes) },
    ]);
    const published = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { ...form.headers, authorization: `Token ${token}` },
      payload: form.payload,
    });
    assert.equal(published.statusCode, 201, published.body);
  });
});
