import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import {
  importTestCategories,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
  userWithToken,
  externalAppXml,
} from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { WebClient } from '../helpers/web-client.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/** The shape `occ app:list --output=json` prints (Nextcloud 30): shipped and store apps, enabled and disabled. */
const OCC_APP_LIST = {
  enabled: { activity: '2.22.0', files: '2.2.0', news: '1.0.0', notes: '1.0.0', theming: '2.5.0' },
  disabled: { encryption: '2.18.0', news_legacy: '0.9.0' },
};

interface Plan {
  nextcloud: string;
  apps: Array<{
    id: string;
    installed: string;
    enabled: boolean;
    status: string;
    reason?: string;
    release?: { version: string; platformVersionSpec: string };
    changelogs?: Array<{ version: string; changelog: string }>;
  }>;
}

/** The upgrade planner (issue 54 §4): each app's release for the target Nextcloud, or why there is none. */
describe(`the upgrade planner (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let send: Send;
  let bobToken = '';
  const plan = (body: unknown) => send('POST', '/api/v1/upgrade-plan', { payload: body });

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' },
      downloadCa: [TEST_TLS_CA],
    });
    send = injectSend(server.app);
    await importTestCategories(server.container);
    const alice = await userWithToken(server.container, 'alice');
    const bob = await userWithToken(server.container, 'bob');
    bobToken = bob;
    await registerFixtureApp(send, alice, 'news');
    await registerFixtureApp(send, bob, 'notes');
    for (const [version, range] of [
      ['1.0.0', ['30', '32']],
      ['1.1.0', ['30', '32']],
      ['2.0.0', ['31', '33']],
      ['2.1.0-beta.1', ['31', '33']],
    ] as const) {
      const answer = await publishFixtureRelease(send, alice, files, { id: 'news', version, nextcloud: range });
      assert.equal(answer.status, 201, answer.text);
    }
    const notes = await publishFixtureRelease(send, bob, files, {
      id: 'notes',
      version: '1.0.0',
      nextcloud: ['30', '32'],
    });
    assert.equal(notes.status, 201, notes.text);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('for Nextcloud 33: an update with the changelogs since the installed version; none for an app not ready; shipped apps not listed', async () => {
    const answer = await plan({ apps: OCC_APP_LIST, nextcloud: '33' });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Plan>();
    assert.equal(body.nextcloud, '33.0.0');
    const byId = new Map(body.apps.map((app) => [app.id, app]));
    assert.equal(body.apps.length, 7);
    const news = byId.get('news');
    assert.equal(news?.status, 'update');
    assert.equal(news?.release?.version, '2.0.0', 'the newest stable release for 33, not the beta');
    assert.deepEqual(
      news?.changelogs?.map((entry) => entry.version),
      ['2.0.0', '1.1.0'],
      'every release after 1.0.0 up to 2.0.0, newest first, whatever it supports',
    );
    assert.match(news?.changelogs?.[0]?.changelog ?? '', /this release/);
    const notes = byId.get('notes');
    assert.equal(notes?.status, 'no-release');
    assert.match(notes?.reason ?? '', /No release supports Nextcloud 33\.0\.0 yet; the newest, 1\.0\.0, needs/);
    for (const id of ['files', 'activity', 'encryption', 'news_legacy'])
      assert.equal(byId.get(id)?.status, 'not-listed', id);
    assert.equal(byId.get('encryption')?.enabled, false);
  });

  test('for Nextcloud 30: news stays at 1.1.0; notes is up to date; an installed version newer than any release there is said so', async () => {
    const answer = await plan({
      apps: { enabled: { news: '1.1.0', notes: '1.0.0' }, disabled: {} },
      nextcloud: '30.0.4',
    });
    const byId = new Map(answer.json<Plan>().apps.map((app) => [app.id, app]));
    assert.equal(byId.get('news')?.status, 'up-to-date');
    assert.equal(byId.get('news')?.release?.version, '1.1.0');
    assert.deepEqual(byId.get('news')?.changelogs, []);
    assert.equal(byId.get('notes')?.status, 'up-to-date');
    const newer = await plan({ apps: { enabled: { news: '2.0.0' } }, nextcloud: '30' });
    assert.match(
      newer.json<Plan>().apps[0]?.reason ?? '',
      /installed 2\.0\.0 is newer than the newest release for Nextcloud 30\.0\.0/,
    );
  });

  test('bad input is a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ apps: [1, 2], nextcloud: '33' }, 'apps'],
      [{ apps: { something: {} }, nextcloud: '33' }, 'apps'],
      [{ apps: { enabled: { news: 3 } }, nextcloud: '33' }, 'apps'],
      [{ apps: OCC_APP_LIST, nextcloud: 'next year' }, 'nextcloud'],
    ] as const) {
      const answer = await plan(body);
      assert.equal(answer.status, 400, answer.text);
      assert.ok(Object.keys(answer.json<{ errors: Record<string, unknown> }>().errors).includes(field), answer.text);
    }
  });

  test('the page: paste, choose the version, read the plan with the changes; a paste that is not JSON is refused', async () => {
    const web = new WebClient(server.app);
    const empty = await web.get('/upgrade');
    assert.equal(empty.statusCode, 200);
    const wrong = await web.post('/upgrade', { apps: 'enabled: news', nextcloud: '33' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /What was pasted is not JSON/);
    const planned = await web.post('/upgrade', { apps: JSON.stringify(OCC_APP_LIST), nextcloud: '33' });
    assert.equal(planned.statusCode, 200, planned.body);
    assert.match(planned.body, /Your apps on Nextcloud 33\.0\.0/);
    assert.match(
      planned.body,
      /<th scope="row">news<\/th><td data-label="Installed">1\.0\.0<\/td><td data-label="Take">2\.0\.0<\/td>/,
    );
    assert.match(planned.body, /<summary><bdi>news: 1\.0\.0 → 2\.0\.0<\/bdi><\/summary>/);
    assert.match(planned.body, /No release supports Nextcloud \u206633\.0\.0\u2069 yet/);
  });

  test('an ExApp (AppAPI) is planned like any app, and said to be one', async () => {
    const exapp = await publishFixtureRelease(send, bobToken, files, {
      id: 'notes',
      version: '2.0.0',
      nextcloud: ['31', '34'],
      extra: externalAppXml('2.0.0'),
    });
    assert.equal(exapp.status, 201, exapp.text);
    const answer = await plan({ apps: { enabled: { notes: '1.0.0' }, disabled: {} }, nextcloud: '34' });
    assert.equal(answer.status, 200, answer.text);
    const notes = answer.json<{
      apps: Array<{ id: string; status: string; isExApp?: boolean; release?: { version: string } }>;
    }>().apps[0];
    assert.equal(notes?.status, 'update');
    assert.equal(notes?.isExApp, true);
    assert.equal(notes?.release?.version, '2.0.0');
    const web = new WebClient(server.app);
    await web.get('/upgrade');
    const page = await web.post('/upgrade', { apps: JSON.stringify({ enabled: { notes: '1.0.0' } }), nextcloud: '34' });
    assert.match(page.body, /<th scope="row">notes <span class="mark">ExApp<\/span><\/th>/);
  });
});
