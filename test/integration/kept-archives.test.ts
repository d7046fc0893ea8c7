import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { archiveKey } from '../../src/domain/archives/archive-storage.ts';
import { followPublicUrl } from '../../src/domain/archives/keep-archives.ts';
import { appArchive, buildArchive, manifestXml, signWith } from '../helpers/app-archive.ts';
import { eventually } from '../helpers/eventually.ts';
import { openDescriptorsOf } from '../helpers/open-files.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, TEST_TLS_CA_FILE, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { nextcloudInstaller, phpMissing } from '../helpers/nextcloud-installer.ts';
import { runAppstore } from '../helpers/run-cli.ts';
import { importTestCategories, injectSend, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import { freePort } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Archives kept by the store for every release (issue 52): a publish keeps what it checked, the
 * listings give the store's URL, a Nextcloud server installs from it; deleting or replacing a
 * release deletes its archive; `appstore archives keep` fetches what was published before, and
 * `appstore archives check` finds what no release names.
 */
describe(`archives kept by the store (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let token: string;
  let origin: string;
  let storageDir: string;
  let served = 0;

  before(async () => {
    files = await startArchiveServer();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_PUBLIC_URL: origin,
      },
      downloadCa: [TEST_TLS_CA],
    });
    storageDir = path.join(server.container.config.dataDir, 'archives');
    await importTestCategories(server.container);
    token = await userWithToken(server.container, 'alice');
    await registerFixtureApp(injectSend(server.app), token, 'news');
    await server.app.listen({ host: '127.0.0.1', port });
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  const host = (bytes: Buffer): string => {
    served += 1;
    files.serve(`/k${served}.tar.gz`, bytes);
    return `${files.origin}/k${served}.tar.gz`;
  };
  const publish = (bytes: Buffer, nightly = false, download = host(bytes)) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { authorization: `Token ${token}` },
      payload: { download, signature: signWith('news', bytes), nightly },
    });
  const stored = (bytes: Buffer): boolean => fs.existsSync(path.join(storageDir, ...archiveKey(sha(bytes)).split('/')));
  const row = (version: string) =>
    server.container.database.db
      .selectFrom('releases')
      .select(['download', 'developer_download', 'archive_sha256'])
      .where('app_id', '=', 'news')
      .where('version', '=', version)
      .executeTakeFirst();
  const listedDownloads = async (): Promise<string[]> => {
    const apps = (await server.app.inject({ url: '/api/v1/platform/31.0.0/apps.json' })).json() as Array<{
      id: string;
      releases: Array<{ download: string }>;
    }>;
    return (apps.find((a) => a.id === 'news')?.releases ?? []).map((r) => r.download).sort();
  };

  test('a publish keeps the archive it checked; the listings give the store URL, the developer URL is kept beside it', async () => {
    const bytes = await appArchive({ version: '1.0.0' });
    const download = host(bytes);
    const response = await publish(bytes, false, download);
    assert.equal(response.statusCode, 201, response.body);
    assert.ok(stored(bytes), 'the archive is in storage');
    assert.deepEqual(await row('1.0.0'), {
      download: `${origin}/api/v1/archives/news/1.0.0.tar.gz`,
      developer_download: download,
      archive_sha256: sha(bytes),
    });
    assert.deepEqual(await listedDownloads(), [`${origin}/api/v1/archives/news/1.0.0.tar.gz`]);
    // Served by the store even once the developer's host is gone.
    files.handle(new URL(download).pathname, (_request, answer) => answer.writeHead(404).end('gone'));
    const got = await fetch(`${origin}/api/v1/archives/news/1.0.0.tar.gz`);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('etag'), `"${sha(bytes)}"`);
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes));
    const audit = await server.container.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('event', '=', 'release.published')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { download: JSON.parse(audit.details).download, kept: JSON.parse(audit.details).kept },
      { download, kept: true },
    );
  });

  test('a Nextcloud server installs the kept archive from the store', async (t) => {
    const skip = await phpMissing();
    if (skip !== null) return t.skip(skip);
    const appsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nextcloud-apps-'));
    try {
      const installed = await nextcloudInstaller('install', { api: `${origin}/api/v1`, appId: 'news', appsDir });
      assert.deepEqual(installed, { code: 0, out: 'installed news 1.0.0' });
      assert.match(fs.readFileSync(path.join(appsDir, 'news', 'appinfo', 'info.xml'), 'utf8'), /1\.0\.0/);
    } finally {
      fs.rmSync(appsDir, { recursive: true, force: true });
    }
  });

  test('publishing a version again with other bytes, and a newer nightly, delete the archives they replace', async () => {
    const first = await appArchive({ version: '1.1.0' });
    assert.equal((await publish(first)).statusCode, 201);
    const rebuilt = await appArchive({ version: '1.1.0', name: 'News rebuilt' });
    assert.equal((await publish(rebuilt)).statusCode, 200);
    assert.ok(stored(rebuilt));
    assert.ok(!stored(first), 'the replaced bytes are gone');

    const nightly = await appArchive({ version: '1.2.0' });
    assert.equal((await publish(nightly, true)).statusCode, 201);
    const nextNightly = await appArchive({ version: '1.3.0' });
    assert.equal((await publish(nextNightly, true)).statusCode, 201);
    assert.ok(!stored(nightly) && stored(nextNightly), 'the earlier nightly went with its release');
    assert.equal((await fetch(`${origin}/api/v1/archives/news/nightly/1.3.0.tar.gz`)).status, 200);
  });

  test('deleting a release, then the app, deletes their archives', async () => {
    const kept = await appArchive({ version: '1.1.0', name: 'News rebuilt' });
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/news/releases/1.1.0',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(deleted.statusCode, 204);
    assert.ok(!stored(kept));
    assert.equal((await fetch(`${origin}/api/v1/archives/news/1.1.0.tar.gz`)).status, 404);

    const left = await server.container.keptArchives.archives.references.ofApp('news');
    assert.ok(left.length > 0);
    const gone = await server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/news',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(gone.statusCode, 204);
    const names: string[] = [];
    for await (const archive of server.container.keptArchives.archives.storage.list()) names.push(archive.sha256);
    assert.deepEqual(names, [], 'nothing of the app is left in storage');
  });

  test('a new public URL: the kept releases follow it at the next start', async () => {
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201);
    const bytes = await appArchive({ version: '2.0.0' });
    assert.equal((await publish(bytes)).statusCode, 201);
    const moved = await followPublicUrl({
      ...server.container.keptArchives,
      archives: {
        ...server.container.keptArchives.archives,
        base: 'https://apps.example.org/api/v1/archives/',
        url: (appId, version) => `https://apps.example.org/api/v1/archives/${appId}/${version}.tar.gz`,
      },
    });
    assert.equal(moved, 1);
    assert.deepEqual(await listedDownloads(), ['https://apps.example.org/api/v1/archives/news/2.0.0.tar.gz']);
    assert.equal(await followPublicUrl(server.container.keptArchives), 1, 'and back');
    assert.deepEqual(await listedDownloads(), [`${origin}/api/v1/archives/news/2.0.0.tar.gz`]);
  });

  test('a client that pipelines downloads and hangs up early leaves no archive open; a 304 has no body length', async () => {
    // Incompressible, so the archive is as large as its contents: five of them fill any socket buffers.
    const bytes = await buildArchive({
      'news/appinfo/info.xml': manifestXml({ version: '7.0.0' }),
      'news/lib/Application.php': '<?php\n',
      'news/data.bin': randomBytes(12 * 1024 * 1024),
    });
    assert.equal((await publish(bytes)).statusCode, 201);
    const file = path.join(storageDir, ...archiveKey(sha(bytes)).split('/'));
    const url = '/api/v1/archives/news/7.0.0.tar.gz';

    const notModified = await fetch(`${origin}${url}`, { headers: { 'if-none-match': `"${sha(bytes)}"` } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('content-length'), null);

    // Five GETs at once on one connection: Node queues the responses after the first, and a
    // queued response never hears its connection close. The client reads a little, then goes.
    const { port } = new URL(origin);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET ${url} HTTP/1.1\r\nhost: store\r\n\r\n`.repeat(5));
      });
      socket.once('data', () => {
        socket.pause();
        setImmediate(() => socket.destroy());
      });
      socket.once('close', () => resolve());
      socket.once('error', reject);
    });
    // Every body the connection held is closed, the queued ones too.
    await eventually(async () => assert.equal(openDescriptorsOf(file), 0));
    const whole = await fetch(`${origin}${url}`);
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(bytes), 'the store still serves it whole');
  });
});

/**
 * A store that did not keep archives (APPSTORE_KEEP_ARCHIVES=0, as the original): its releases
 * list the developers' URLs, until `appstore archives keep` (the bundle, as an operator runs it)
 * keeps them; `archives check` finds an orphan and deletes it.
 */
describe(`appstore archives keep and check (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let token: string;
  const env = (): Record<string, string> => ({
    ...server.database.env,
    APPSTORE_CA_CERT: certFile('chain.pem'),
    APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    APPSTORE_PUBLIC_URL: 'https://apps.example.org',
    NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE,
  });

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_KEEP_ARCHIVES: '0',
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importTestCategories(server.container);
    token = await userWithToken(server.container, 'alice');
    await registerFixtureApp(injectSend(server.app), token, 'news');
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('releases published without keeping are kept afterwards; one whose host now serves other bytes is not', async () => {
    const one = await appArchive({ version: '1.0.0' });
    const two = await appArchive({ version: '1.1.0' });
    files.serve('/one.tar.gz', one);
    files.serve('/two.tar.gz', two);
    for (const [bytes, name] of [
      [one, 'one'],
      [two, 'two'],
    ] as const) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/releases',
        headers: { authorization: `Token ${token}` },
        payload: { download: `${files.origin}/${name}.tar.gz`, signature: signWith('news', bytes) },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    const releases = () =>
      server.container.database.db
        .selectFrom('releases')
        .select(['version', 'download', 'developer_download'])
        .orderBy('version')
        .execute();
    assert.deepEqual(
      (await releases()).map((r) => r.developer_download),
      [null, null],
      'not kept: the developer URL is listed',
    );
    // The developer rebuilt 1.1.0 at the same address: not what was checked at publish.
    files.serve('/two.tar.gz', await appArchive({ version: '1.1.0', name: 'Other' }));

    const first = await runAppstore(['archives', 'keep'], env());
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /\[1\/2\] kept news 1\.0\.0/);
    assert.match(
      first.stderr,
      /\[2\/2\] not kept: news 1\.1\.0: .*two\.tar\.gz now serves other bytes than were published/,
    );
    assert.match(first.stdout, /^1 archive kept, 1 not/);
    assert.deepEqual(await releases(), [
      {
        version: '1.0.0',
        download: 'https://apps.example.org/api/v1/archives/news/1.0.0.tar.gz',
        developer_download: `${files.origin}/one.tar.gz`,
      },
      { version: '1.1.0', download: `${files.origin}/two.tar.gz`, developer_download: null },
    ]);

    // Fixed at the host: the run goes on with what is left.
    files.serve('/two.tar.gz', two);
    const second = await runAppstore(['archives', 'keep'], env());
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /\[1\/1\] kept news 1\.1\.0/);
    assert.equal(
      (await runAppstore(['archives', 'keep'], env())).stderr.trim(),
      'every release published here has its archive kept',
    );
  });

  test('check: an archive no release names is an orphan once an hour old; --delete deletes it; a missing one is named', async () => {
    const storage = server.container.keptArchives.archives.storage;
    const strayBytes = Buffer.from('stray');
    const stray = sha(strayBytes);
    await storage.put(stray, strayBytes);
    const recent = await runAppstore(['archives', 'check'], env());
    assert.equal(recent.code, 0, recent.stdout);
    assert.match(recent.stdout, /3 archives stored/);
    assert.match(recent.stdout, /1 archive stored in the last 60 minutes and named by no release yet: left alone/);

    const file = path.join(server.container.config.dataDir, 'archives', ...archiveKey(stray).split('/'));
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    fs.utimesSync(file, old, old);
    const found = await runAppstore(['archives', 'check'], env());
    assert.equal(found.code, 1);
    assert.match(found.stdout, new RegExp(`orphan: ${stray}\\n`));
    assert.match(found.stdout, /1 orphan \(--delete deletes them\), 0 missing/);
    const removed = await runAppstore(['archives', 'check', '--delete'], env());
    assert.equal(removed.code, 0, removed.stdout);
    assert.match(removed.stdout, /1 orphan \(1 deleted\), 0 missing/);
    assert.ok(!fs.existsSync(file));

    const one = (await server.container.keptArchives.archives.references.served()).values().next().value as string;
    await storage.delete(one);
    const missing = await runAppstore(['archives', 'check'], env());
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, new RegExp(`missing: ${one}`));
  });
});
