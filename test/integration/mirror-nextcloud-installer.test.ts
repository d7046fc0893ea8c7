import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { MirrorDeps } from '../../src/domain/mirror/mirror-ports.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import { nextcloudInstaller, phpMissing } from '../helpers/nextcloud-installer.ts';
import { freePort } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/**
 * A Nextcloud server pointed at the mirror (appstoreurl), with the upstream's root.crt and CRL
 * as its own: it installs an app from the mirror, sees the update once the mirror synced it, and
 * updates (test/helpers/nextcloud-installer.php does what the server's Installer does).
 */
describe(`a Nextcloud server installs and updates from a mirror (${DIALECT})`, () => {
  let source: UpstreamStore;
  let mirror: TestServer;
  let deps: MirrorDeps;
  let appsDir: string;
  let api: string;
  let skip: string | null;

  const installer = (command: 'install' | 'update-available', root = certFile('chain.pem')) =>
    nextcloudInstaller(command, { api, appId: 'news', appsDir, root });

  before(async () => {
    skip = await phpMissing();
    if (skip !== null) return;
    source = await startUpstreamStore([['news', '1.0.0']]);
    const port = await freePort();
    api = `http://127.0.0.1:${port}/api/v1`;
    mirror = await createTestServer({
      env: { ...source.mirrorEnv, APPSTORE_PUBLIC_URL: `http://127.0.0.1:${port}` },
      downloadCa: [TEST_TLS_CA],
    });
    assert.ok(mirror.container.mirror.deps !== null);
    deps = { ...mirror.container.mirror.deps, log: () => undefined };
    await mirror.app.listen({ host: '127.0.0.1', port });
    appsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nextcloud-apps-'));
  });
  after(async () => {
    await mirror?.close();
    await source?.close();
    if (appsDir !== undefined) fs.rmSync(appsDir, { recursive: true, force: true });
  });

  test('install from the mirror, then update once the mirror synced the new release', async (t) => {
    if (skip !== null) return t.skip(skip);
    assert.equal((await syncMirror(TEST_ACTING, deps)).taken, 1);
    const installed = await installer('install');
    assert.deepEqual(installed, { code: 0, out: 'installed news 1.0.0' });
    assert.match(
      fs.readFileSync(path.join(appsDir, 'news', 'appinfo', 'info.xml'), 'utf8'),
      /<version>1\.0\.0<\/version>/,
    );
    assert.equal((await installer('update-available')).out, 'no');

    await source.publish('news', '1.1.0');
    assert.equal((await installer('update-available')).out, 'no', 'not before the mirror synced');
    assert.equal((await syncMirror(TEST_ACTING, deps)).taken, 1);
    assert.equal((await installer('update-available')).out, 'yes');
    assert.deepEqual(await installer('install'), { code: 0, out: 'installed news 1.1.0' });
    assert.match(
      fs.readFileSync(path.join(appsDir, 'news', 'appinfo', 'info.xml'), 'utf8'),
      /<version>1\.1\.0<\/version>/,
    );

    await mirror.container.downloads.counter.flush();
    const counts = await mirror.container.database.db.selectFrom('release_downloads').select('count').execute();
    assert.deepEqual(
      counts.map((c) => Number(c.count)),
      [1],
      'the installed release counted once (1.0.0 is no longer listed, its count went with it)',
    );
  });

  test("a server whose root.crt is another authority's refuses the mirror's app, as it would the original's", async (t) => {
    if (skip !== null) return t.skip(skip);
    const refused = await installer('install', certFile('other-root.crt'));
    assert.equal(refused.code, 1);
    assert.match(refused.out, /not issued by a trusted Code Signing Authority/);
  });
});
