import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setAppFlags } from '../../src/domain/apps/manage-apps.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import {
  externalAppXml,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
  userWithToken,
} from '../helpers/store-actions.ts';
import type { TestServer } from '../helpers/test-server.ts';

const ENV = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' };

const EXTERNAL = externalAppXml;

interface Release {
  version: string;
  isNightly: boolean;
  [field: string]: unknown;
}
interface App {
  id: string;
  releases: Release[];
}

describe(`ExApps: published, listed in appapi_apps.json only (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let token = '';
  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({ env: ENV, downloadCa: [TEST_TLS_CA] });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    token = await userWithToken(server.container, 'ada');
    for (const id of ['news', 'notes'] as const)
      assert.equal(await registerFixtureApp(injectSend(server.app), token, id), 201);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  async function publish(id: 'news' | 'notes', version: string, extra = '', nightly = false): Promise<number> {
    const response = await publishFixtureRelease(injectSend(server.app), token, files, {
      id,
      version,
      extra,
      nextcloud: ['30', '31'],
      nightly,
    });
    assert.ok(response.status === 201 || response.status === 200, response.text);
    return response.status;
  }
  const listing = async (url: string): Promise<App[]> => {
    const response = await server.app.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 200, url);
    return response.json() as App[];
  };
  const versions = (apps: App[]) =>
    Object.fromEntries(
      apps.map((app) => [app.id, app.releases.map((r) => `${r.version}${r.isNightly ? '-nightly' : ''}`)]),
    );

  test("an app's releases are split: ordinary ones in apps.json and the platform listings, ExApp ones in appapi_apps.json, with the AppAPI fields", async () => {
    assert.equal(await publish('news', '1.0.0'), 201);
    assert.equal(await publish('news', '2.0.0', EXTERNAL('2.0.0')), 201);
    assert.equal(await publish('notes', '1.0.0', EXTERNAL('1.0.0', false)), 201);

    assert.deepEqual(
      versions(await listing('/api/v1/apps.json')),
      { news: ['1.0.0'] },
      'an ExApp-only app is not in apps.json',
    );
    assert.deepEqual(versions(await listing('/api/v1/platform/31.0.0/apps.json')), { news: ['1.0.0'] });
    const appapi = await listing('/api/v1/appapi_apps.json');
    assert.deepEqual(versions(appapi), { news: ['2.0.0'], notes: ['1.0.0'] });

    const exApp = appapi[0]?.releases[0] as Release;
    assert.equal(exApp.aaIsSystem, true);
    assert.deepEqual(exApp.deployMethods, [
      {
        installType: 'docker_install',
        installData: '{"registry": "ghcr.io", "image": "nextcloud/news_exapp", "image_tag": "2.0.0"}',
      },
    ]);
    assert.deepEqual(JSON.parse(String((exApp.deployMethods as Array<{ installData: string }>)[0]?.installData)), {
      registry: 'ghcr.io',
      image: 'nextcloud/news_exapp',
      image_tag: '2.0.0',
    });
    assert.deepEqual(exApp.apiScopes, [{ scopeName: 'FILES' }, { scopeName: 'NOTIFICATIONS' }, { scopeName: 'TALK' }]);
    assert.deepEqual(exApp.environmentVariables, [
      {
        name: 'SOME_VALUE1',
        displayName: 'Display name 1',
        description: 'Some useful description of it',
        default: null,
      },
      { name: 'SOME_VALUE2', displayName: 'Display name 2', description: 'With a default', default: '0' },
    ]);
    assert.equal(appapi[1]?.releases[0]?.aaIsSystem, false);

    const ordinary = (await listing('/api/v1/apps.json'))[0]?.releases[0] as Release;
    for (const field of ['aaIsSystem', 'deployMethods', 'apiScopes', 'environmentVariables'])
      assert.equal(field in ordinary, false, `${field} only in appapi_apps.json`);
    assert.deepEqual(
      Object.keys(exApp).filter((key) => !(key in ordinary)),
      ['aaIsSystem', 'deployMethods', 'apiScopes', 'environmentVariables'],
      'an ExApp release carries every field of a release, plus the AppAPI ones',
    );
    // The app-level data come from the latest release, whichever listing it is in (2.0.0 is the ExApp).
    assert.equal((await listing('/api/v1/apps.json'))[0]?.id, 'news');
  });

  test('served like every listing: its own ETag, 304, and the ETag moves with an ExApp write', async () => {
    const first = await server.app.inject({ method: 'GET', url: '/api/v1/appapi_apps.json' });
    const etag = String(first.headers.etag);
    assert.notEqual(etag, (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).headers.etag);
    assert.equal(
      (await server.app.inject({ method: 'GET', url: '/api/v1/appapi_apps.json', headers: { 'if-none-match': etag } }))
        .statusCode,
      304,
    );
    assert.equal((await server.app.inject({ method: 'HEAD', url: '/api/v1/appapi_apps.json' })).statusCode, 200);
    await publish('notes', '1.0.1', EXTERNAL('1.0.1', false), true);
    assert.equal(
      (await server.app.inject({ method: 'GET', url: '/api/v1/appapi_apps.json', headers: { 'if-none-match': etag } }))
        .statusCode,
      200,
    );
  });

  test('nightlies: a new ExApp nightly replaces the earlier one; deleting ExApp releases empties the app from appapi_apps.json', async () => {
    assert.deepEqual(versions(await listing('/api/v1/appapi_apps.json')).notes, ['1.0.1-nightly', '1.0.0']);
    await publish('notes', '1.0.2', EXTERNAL('1.0.2', false), true);
    assert.deepEqual(versions(await listing('/api/v1/appapi_apps.json')).notes, ['1.0.2-nightly', '1.0.0']);
    const auth = { authorization: `Token ${token}` };
    assert.equal(
      (await server.app.inject({ method: 'DELETE', url: '/api/v1/apps/notes/releases/nightly/1.0.2', headers: auth }))
        .statusCode,
      204,
    );
    assert.equal(
      (await server.app.inject({ method: 'DELETE', url: '/api/v1/apps/notes/releases/1.0.0', headers: auth }))
        .statusCode,
      204,
    );
    assert.deepEqual(versions(await listing('/api/v1/appapi_apps.json')), { news: ['2.0.0'] });
  });

  test('a version published again without <external-app> becomes an ordinary release, and the other way round', async () => {
    assert.equal(await publish('news', '2.0.0'), 200);
    assert.deepEqual(versions(await listing('/api/v1/apps.json')), { news: ['2.0.0', '1.0.0'] });
    assert.deepEqual(await listing('/api/v1/appapi_apps.json'), []);
    assert.equal(await publish('news', '2.0.0', EXTERNAL('2.0.1')), 200);
    assert.deepEqual(versions(await listing('/api/v1/appapi_apps.json')), { news: ['2.0.0'] });
    assert.deepEqual(versions(await listing('/api/v1/apps.json')), { news: ['1.0.0'] });
  });

  test("include_enterprise applies (the original's test_appapi_excludes/includes_enterprise)", async () => {
    await publish('notes', '1.1.0', EXTERNAL('1.1.0'));
    await setAppFlags('notes', { enterpriseOnly: true }, TEST_ACTING, server.container.appManagement);
    assert.deepEqual(Object.keys(versions(await listing('/api/v1/appapi_apps.json'))), ['news']);
    assert.deepEqual(Object.keys(versions(await listing('/api/v1/appapi_apps.json?include_enterprise=true'))), [
      'news',
      'notes',
    ]);
  });

  test("appstore release inspect shows an ExApp's container data", async () => {
    const file = path.join(server.database.dataDir, 'exapp.tar.gz');
    fs.writeFileSync(file, await appArchive({ id: 'news', version: '3.0.0', extra: EXTERNAL('3.0.0') }));
    const inspected = await runCommand(['release', 'inspect', file], server.database.env);
    assert.equal(inspected.code, 0, inspected.stderr);
    const printed = JSON.parse(inspected.stdout) as { release: { externalApp: unknown } };
    assert.deepEqual(printed.release.externalApp, {
      isSystem: true,
      dockerInstall: { registry: 'ghcr.io', image: 'nextcloud/news_exapp', imageTag: '3.0.0' },
      scopes: ['FILES', 'NOTIFICATIONS', 'TALK'],
      environmentVariables: [
        {
          name: 'SOME_VALUE1',
          displayName: 'Display name 1',
          description: 'Some useful description of it',
          default: null,
        },
        { name: 'SOME_VALUE2', displayName: 'Display name 2', description: 'With a default', default: '0' },
      ],
    });
  });
});
