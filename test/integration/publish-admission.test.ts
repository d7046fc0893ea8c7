import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { nestedUseIcon } from '../helpers/hostile-icons.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

/**
 * What is refused before any download, and how many publishes run at once (issue 49): one account
 * with no app started a job per POST, each reading up to 20 MiB, and 60 of them took a node from
 * 127 MiB to 1.5 GiB.
 */
describe(`publishes admitted before any download, bounded per user and per node (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  const tokens: Record<string, string> = {};
  const passwords: Record<string, string> = {
    dora: 'lunar pebble harvest violin',
    carol: 'copper kettle autumn ridge',
  };
  /** Downloads the archive server has begun; each is held open until `letGo()`. */
  const held: ServerResponse[] = [];
  const letGo = () => {
    for (const response of held.splice(0)) response.writeHead(404).end('gone');
  };

  before(async () => {
    files = await startArchiveServer();
    files.handle('/held.tar.gz', (_request, response) => void held.push(response));
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_PUBLISHES_AT_ONCE: '2',
      },
      downloadCa: [TEST_TLS_CA],
    });
    for (const name of ['alice', 'carol', 'dora'])
      tokens[name] = await getOrCreateToken(
        await createUser(server.container, name, passwords[name] ?? null),
        TEST_ACTING,
        server.container.accounts,
      );
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${tokens['alice']}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201);
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
    await importCategories(
      [{ id: 'multimedia', translations: { en: { name: 'Multimedia', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
  });
  after(async () => {
    letGo();
    await server.close();
    await files.close();
  });

  /** Starts at once (inject's chain runs only when awaited; an async function awaits it). */
  const publish = async (who: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { authorization: `Token ${tokens[who]}` },
      payload: { download: `${files.origin}/held.tar.gz`, signature: 'AAAA' },
    });

  test('an account with no app is refused before anything is downloaded: the API, and the website without starting a job', async () => {
    const refused = await publish('dora');
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json().detail, /You own or co-maintain no app here/);
    const web = new WebClient(server.app);
    await web.get('/account/login');
    assert.equal(
      (await web.post('/account/login', { username: 'dora', password: passwords['dora'] ?? '', next: '/developer' }))
        .statusCode,
      303,
    );
    await web.get('/developer/publish');
    const page = await web.post('/developer/publish', { download: `${files.origin}/held.tar.gz`, signature: 'AAAA' });
    assert.equal(page.statusCode, 403, page.body.slice(0, 300));
    assert.match(page.body, /You own or co-maintain no app here/);
    assert.equal(
      (await server.container.database.db.selectFrom('publish_jobs').select('id').execute()).length,
      0,
      'no job was started',
    );
    assert.equal(held.length, 0, 'nothing was downloaded');
  });

  test("the publish page says when the archive's icon was left out, and why (issue 49)", async () => {
    const bytes = await appArchive({ id: 'news', version: '3.0.0', icon: nestedUseIcon() });
    files.serve('/icon.tar.gz', bytes);
    const web = new WebClient(server.app);
    await web.get('/account/login');
    assert.equal(
      (await web.post('/account/login', { username: 'carol', password: passwords['carol'] ?? '', next: '/developer' }))
        .statusCode,
      303,
    );
    await web.get('/developer/publish');
    const started = await web.post('/developer/publish', {
      download: `${files.origin}/icon.tar.gz`,
      signature: signWith('news', bytes),
    });
    assert.equal(started.statusCode, 303, started.body.slice(0, 300));
    await server.container.publishJobs.settled();
    const page = await web.get(String(started.headers.location));
    assert.match(page.body, /Published: news 3\.0\.0\./);
    assert.match(page.body, /Note: the icon was left out: img\/app\.svg takes more than 200000 units of drawing work/);
  });

  test('a node downloads two at once here; the third waits its turn; a user has at most three under way, the fourth is a 429 with Retry-After', async () => {
    const first = [publish('alice'), publish('alice')];
    await eventually(async () => assert.equal(held.length, 2, 'two downloads under way'));
    const third = publish('alice');
    await eventually(async () => assert.deepEqual(server.container.publishing.slots.load, { running: 2, waiting: 1 }));
    const refused = await publish('alice');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.match(refused.json().detail, /You have 3 publishes under way; at most 3 run at once per account/);
    assert.equal(refused.headers['retry-after'], '30');
    // Another maintainer of the app is not held back by alice's limit, but waits for the node.
    const carols = publish('carol');
    await eventually(async () => assert.deepEqual(server.container.publishing.slots.load, { running: 2, waiting: 2 }));
    assert.equal(held.length, 2, 'the node still downloads two: the others wait');
    letGo();
    for (const answer of await Promise.all(first)) assert.equal(answer.json().code, 'invalid_download');
    // Places freed: the waiting ones download now, in order.
    await eventually(async () => assert.equal(held.length, 2, 'the two that waited download now'));
    letGo();
    for (const answer of await Promise.all([third, carols])) assert.equal(answer.json().code, 'invalid_download');
    assert.deepEqual(server.container.publishing.slots.load, { running: 0, waiting: 0 });
    // Every place was given back: alice may publish again.
    const again = publish('alice');
    await eventually(async () => assert.equal(held.length, 1));
    letGo();
    assert.equal((await again).json().code, 'invalid_download');
    // Only the admitted ones counted against the daily limit: the 429 did not use up an upload.
    const alice = await server.container.accounts.store.findUserByUsername('alice');
    const hits = await server.container.database.db
      .selectFrom('rate_limit_hits')
      .select('id')
      .where('bucket', '=', 'release-publish')
      .where('subject', '=', String(alice?.id))
      .execute();
    assert.equal(hits.length, 4);
  });
});
