import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

describe(`APPSTORE_DISCUSSION_URL_TEMPLATE: a discussion link for apps that give none (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_DISCUSSION_URL_TEMPLATE: 'https://forum.example.org/c/apps/{id-dashed}',
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      [{ id: 'multimedia', translations: { en: { name: 'Multimedia', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    const token = await userWithToken(server.container, 'ada');
    const send = injectSend(server.app);
    for (const id of ['news', 'notes'] as const) assert.equal(await registerFixtureApp(send, token, id), 201);
    assert.equal((await publishFixtureRelease(send, token, files, { id: 'news' })).status, 201);
    const own = '<discussion>https://own.example.org/notes</discussion>';
    const notes = await publishFixtureRelease(send, token, files, { id: 'notes', name: 'Notes', extra: own });
    assert.equal(notes.status, 201, notes.text);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test("apps.json and the app page: the template's link where the app gives none, the app's own otherwise", async () => {
    const apps = (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).json() as Array<{
      id: string;
      discussion: string;
    }>;
    assert.equal(apps.find((a) => a.id === 'news')?.discussion, 'https://forum.example.org/c/apps/news');
    assert.equal(apps.find((a) => a.id === 'notes')?.discussion, 'https://own.example.org/notes');
    const page = await server.app.inject({ method: 'GET', url: '/apps/news', headers: { accept: 'text/html' } });
    assert.match(page.body, /href="https:\/\/forum\.example\.org\/c\/apps\/news"/);
  });

  test('a template that is no address with the app id in it is refused at start, naming the variable', async () => {
    await assert.rejects(
      createTestServer({ env: { APPSTORE_DISCUSSION_URL_TEMPLATE: 'forum.example.org/apps' } }),
      /APPSTORE_DISCUSSION_URL_TEMPLATE: expected an http\(s\) address with \{id\}/,
    );
  });
});
