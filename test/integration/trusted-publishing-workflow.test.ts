import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { listPublishers } from '../../src/domain/trusted-publishing/trusted-publishing.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { githubClaims, startCiIssuers } from '../helpers/ci-issuer.ts';
import type { CiIssuers } from '../helpers/ci-issuer.ts';
import { TEST_TLS_CA_FILE } from '../helpers/https-archive-server.ts';
import { nextcloudInstaller, phpMissing } from '../helpers/nextcloud-installer.ts';
import { ROOT, runAppstore } from '../helpers/run-cli.ts';
import { freePort, startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { importTestCategories, injectSend, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);
const SCRIPT = path.join(ROOT, 'src', 'web', 'static', 'publish-release.sh');

/**
 * The workflow of docs/trusted-publishing.md, as GitHub Actions runs it: src/web/static/publish-release.sh (served at /static/publish-release.sh)
 * (sh, curl, openssl) asks the CI for an ID token, exchanges it, signs and uploads the archive to
 * the store started as the README starts it (the bundle), with no store token anywhere; the
 * administrator and owner set it up with the CLI; a Nextcloud server then installs the release.
 */
describe(`trusted publishing from a workflow, through the bundle (${DIALECT})`, () => {
  let server: TestServer;
  let issuers: CiIssuers;
  let serve: ServeProcess;
  let work: string;
  let env: Record<string, string>;

  before(async () => {
    issuers = await startCiIssuers();
    server = await createTestServer({ env: { APPSTORE_CA_CERT: certFile('chain.pem') } });
    await importTestCategories(server.container);
    const token = await userWithToken(server.container, 'alice');
    await registerFixtureApp(injectSend(server.app), token, 'news');
    const port = await freePort();
    env = {
      ...server.database.env,
      APPSTORE_CA_CERT: certFile('chain.pem'),
      APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
      APPSTORE_PORT: String(port),
      APPSTORE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE,
    };
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'trusted-publishing-'));
  });
  after(async () => {
    await serve?.stop();
    await server.close();
    await issuers.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('the CLI sets it up; the script publishes; the release is listed with its provenance and installs', async (t) => {
    const allowed = await runAppstore(
      ['trusted-issuer', 'add', issuers.github.url, '--provider', 'github', '--name', 'Local Actions'],
      env,
    );
    assert.equal(allowed.code, 0, allowed.stderr);
    const added = await runAppstore(
      [
        'trusted-publisher',
        'add',
        'news',
        '--provider',
        'github',
        '--issuer',
        issuers.github.url,
        '--repository',
        'alice/news',
        '--workflow',
        'release.yml',
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const listed = await runAppstore(['trusted-publisher', 'list', 'news'], env);
    assert.match(
      listed.stdout,
      /^\d+\tGitHub alice\/news \.github\/workflows\/release\.yml \(https:\/\/localhost:\d+\/github\)\t-\t-\n$/,
    );

    serve = await startServeProcess(env);
    const archive = path.join(work, 'news.tar.gz');
    fs.writeFileSync(archive, await appArchive({ version: '1.0.0' }));
    const request = issuers.actionsRequest(githubClaims());
    const published = await run('sh', [SCRIPT], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        STORE: serve.url,
        ARCHIVE: archive,
        APP_SIGNING_KEY: fs.readFileSync(certFile('news.key'), 'utf8'),
        ACTIONS_ID_TOKEN_REQUEST_URL: request.url,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: request.bearer,
        CURL_CA_BUNDLE: TEST_TLS_CA_FILE,
      },
    });
    assert.equal(published.stdout.trim(), 'published news.tar.gz (new release of news)');

    const apps = (await (await fetch(`${serve.url}/api/v1/platform/30.0.0/apps.json`)).json()) as Array<{
      id: string;
      releases: Array<{ version: string; provenance?: { repository: string; runUrl: string } }>;
    }>;
    const release = apps.find((app) => app.id === 'news')?.releases[0];
    assert.equal(release?.version, '1.0.0');
    assert.equal(release?.provenance?.repository, 'alice/news');
    const [publisher] = await listPublishers('news', server.container.trustedPublishing);
    assert.deepEqual(
      [publisher?.repositoryId, publisher?.ownerId],
      ['2002', '1001'],
      'the ids were pinned at the first publish',
    );
    const page = await (await fetch(`${serve.url}/apps/news`)).text();
    assert.match(page, /Published from/);

    // The script's token revoked itself at the end; a second run with a used ID token is refused.
    const tokens = await server.container.database.db.selectFrom('access_tokens').select('kind').execute();
    assert.deepEqual(tokens, []);

    const skip = await phpMissing();
    if (skip !== null) return t.skip(skip);
    const appsDir = fs.mkdtempSync(path.join(work, 'nextcloud-apps-'));
    const installed = await nextcloudInstaller('install', { api: `${serve.url}/api/v1`, appId: 'news', appsDir });
    assert.deepEqual(installed, { code: 0, out: 'installed news 1.0.0' });
  });
});
