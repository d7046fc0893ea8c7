import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ListedApp, ListedRelease } from '../../src/domain/listings/app-listing.ts';
import { runScheduledSync } from '../../src/domain/mirror/scheduled-sync.ts';
import { mirrorStatus } from '../../src/domain/mirror/mirror-status.ts';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { MirrorDeps } from '../../src/domain/mirror/mirror-ports.ts';
import { isAppError } from '../../src/errors.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { createUser } from '../helpers/accounts.ts';
import { readCert } from '../helpers/certificate-fixtures.ts';
import { WebClient } from '../helpers/web-client.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import type { HttpsFront } from '../helpers/https-front.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { injectSend, userWithToken } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const MIRROR_URL = 'https://mirror.example.org';
const METRICS_TOKEN = 'metrics-token-for-the-mirror';
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" onload="alert(1)"><circle cx="16" cy="16" r="10" fill="#fff"/><script>alert(2)</script></svg>';

describe(`mirror mode: a second store as the upstream (${DIALECT})`, () => {
  let source: UpstreamStore;
  let upstream: TestServer;
  let mirror: TestServer;
  let front: HttpsFront;
  let files: ArchiveServer;
  let deps: MirrorDeps;

  const listing = async (server: TestServer): Promise<ListedApp[]> =>
    JSON.parse((await server.app.inject({ url: '/api/v1/apps.json' })).body) as ListedApp[];
  const sync = () => syncMirror(TEST_ACTING, deps);

  before(async () => {
    source = await startUpstreamStore([
      ['news', '1.0.0'],
      ['news', '1.1.0'],
      ['notes', '2.0.0'],
    ]);
    ({ server: upstream, front, files } = source);
    mirror = await createTestServer({
      env: { ...source.mirrorEnv, APPSTORE_PUBLIC_URL: MIRROR_URL, APPSTORE_METRICS_TOKEN: METRICS_TOKEN },
      downloadCa: [TEST_TLS_CA],
    });
    assert.ok(mirror.container.mirror.deps !== null);
    deps = { ...mirror.container.mirror.deps, log: () => undefined };
  });
  after(async () => {
    await mirror?.close();
    await source?.close();
  });

  test('a first sync lists the newest release of each app, archives hosted here, certificates and signatures unchanged', async () => {
    const report = await sync();
    assert.equal(report.taken, 2, JSON.stringify(report));
    assert.deepEqual(report.refused, []);
    const theirs = await listing(upstream);
    const ours = await listing(mirror);
    assert.deepEqual(ours.map((a) => a.id).sort(), ['news', 'notes']);
    const news = ours.find((a) => a.id === 'news');
    const upstreamNews = theirs.find((a) => a.id === 'news');
    assert.ok(news !== undefined && upstreamNews !== undefined);
    assert.equal(news.certificate, upstreamNews.certificate);
    assert.deepEqual(
      news.releases.map((r) => r.version),
      ['1.1.0'],
    );
    const release = news.releases[0] as ListedRelease;
    assert.equal(release.download, `${MIRROR_URL}/api/v1/archives/news/1.1.0.tar.gz`);
    assert.equal(release.signature, upstreamNews.releases.find((r) => r.version === '1.1.0')?.signature);

    const archive = await mirror.app.inject({ url: '/api/v1/archives/news/1.1.0.tar.gz' });
    assert.equal(archive.statusCode, 200);
    const original = await fetch(upstreamNews.releases.find((r) => r.version === '1.1.0')?.download ?? '', {
      dispatcher: (await import('../helpers/https-archive-server.ts')).testCaAgent(),
    } as RequestInit);
    const originalBytes = Buffer.from(await original.arrayBuffer());
    assert.ok(archive.rawPayload.equals(originalBytes), 'the archive served is the upstream one, byte for byte');
    const sha = createHash('sha256').update(originalBytes).digest('hex');
    assert.equal(archive.headers.etag, `"${sha}"`);
    assert.equal(archive.headers['accept-ranges'], 'bytes');

    const head = await mirror.app.inject({ method: 'HEAD', url: '/api/v1/archives/news/1.1.0.tar.gz' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(originalBytes.length));
    const notModified = await mirror.app.inject({
      url: '/api/v1/archives/news/1.1.0.tar.gz',
      headers: { 'if-none-match': `"${sha}"` },
    });
    assert.equal(notModified.statusCode, 304);
    const range = await mirror.app.inject({
      url: '/api/v1/archives/news/1.1.0.tar.gz',
      headers: { range: 'bytes=10-19' },
    });
    assert.equal(range.statusCode, 206);
    assert.equal(range.headers['content-range'], `bytes 10-19/${originalBytes.length}`);
    assert.ok(range.rawPayload.equals(originalBytes.subarray(10, 20)));
    const beyond = await mirror.app.inject({
      url: '/api/v1/archives/news/1.1.0.tar.gz',
      headers: { range: `bytes=${originalBytes.length}-` },
    });
    assert.equal(beyond.statusCode, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${originalBytes.length}`);
    const missing = await mirror.app.inject({ url: '/api/v1/archives/news/1.0.0.tar.gz' });
    assert.equal(missing.statusCode, 404);
    assert.equal(JSON.parse(missing.body).code, 'archive_not_found');

    await mirror.container.downloads.counter.flush();
    const counts = await mirror.container.database.db.selectFrom('release_downloads').select('count').execute();
    assert.deepEqual(
      counts.map((c) => Number(c.count)),
      [1],
      'one full download counted (HEAD, 304, a middle range and refusals are not)',
    );

    // The app page and the developer pages (here an admin's) show the counts.
    const page = (await mirror.app.inject({ url: '/apps/news', headers: { accept: 'text/html' } })).body;
    assert.match(page, /<dt>Downloads from this store<\/dt><dd>1<\/dd>/);
    assert.match(page, /<h3><bdi>1\.1\.0<\/bdi><\/h3>[\s\S]*?<dt>Downloads<\/dt><dd>1<\/dd>/);
    assert.match(
      (await mirror.app.inject({ url: '/apps/notes', headers: { accept: 'text/html' } })).body,
      /<dt>Downloads from this store<\/dt><dd>0<\/dd>/,
    );
    await createUser(mirror.container, 'operator', 'an operator password for the mirror', { isAdmin: true });
    const web = new WebClient(mirror.app);
    await web.get('/account/login');
    assert.equal(
      (
        await web.post('/account/login', {
          username: 'operator',
          password: 'an operator password for the mirror',
          next: '/developer',
        })
      ).statusCode,
      303,
    );
    const manage = (await web.get('/developer/apps/news')).body;
    assert.match(manage, /<td data-label="Downloads">1<\/td>/);
  });

  test('the next sync downloads nothing again; a new upstream release arrives with it', async () => {
    const before = front.seen.length;
    const quiet = await sync();
    assert.equal(quiet.taken, 0);
    assert.equal(quiet.unchanged, 2);
    assert.deepEqual(
      Object.values(quiet.documents),
      ['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged'],
      'every document answered 304 to If-None-Match',
    );
    assert.equal(front.seen.length - before, 5);

    await source.publish('news', '1.2.0', ICON);
    const report = await sync();
    assert.equal(report.taken, 1);
    assert.equal(report.unchanged, 1);
    assert.equal(report.documents.apps, 'fetched');
    const news = (await listing(mirror)).find((a) => a.id === 'news');
    assert.deepEqual(
      news?.releases.map((r) => r.version),
      ['1.2.0'],
    );

    // Its archive has an icon: rebuilt as a published one's, shown on the app page.
    const page = (await mirror.app.inject({ url: '/apps/news', headers: { accept: 'text/html' } })).body;
    const icon = /<img class="icon icon-large" src="(\/icons\/[^"]+)"/.exec(page);
    assert.ok(icon?.[1] !== undefined, 'the app page shows the icon');
    const svg = await mirror.app.inject({ url: icon[1] });
    assert.equal(svg.statusCode, 200);
    assert.match(svg.body, /<circle cx="16" cy="16" r="10"/);
    assert.doesNotMatch(svg.body, /onload|script/i, 'rebuilt from the allow-list');
    assert.match(
      (await mirror.app.inject({ url: '/apps/notes', headers: { accept: 'text/html' } })).body,
      /icon-large icon-none/,
      'notes has none',
    );
  });

  test('a tampered archive upstream is not listed, with the reason', async () => {
    await source.publish('notes', '2.1.0');
    const theirs = (await listing(upstream)).find((a) => a.id === 'notes');
    const url = new URL(theirs?.releases.find((r) => r.version === '2.1.0')?.download ?? '');
    files.serve(
      url.pathname,
      await appArchive({ id: 'notes', version: '2.1.0', description: 'changed after signing' }),
    );
    const report = await sync();
    assert.equal(report.refused.length, 1, JSON.stringify(report.refused));
    assert.match(report.refused[0]?.release ?? '', /^notes@2\.1\.0/);
    assert.match(report.refused[0]?.reason ?? '', /signature does not match/);
    const notes = (await listing(mirror)).find((a) => a.id === 'notes');
    assert.deepEqual(
      notes?.releases.map((r) => r.version),
      ['2.0.0'],
      'the release before stays listed',
    );
    const status = await mirrorStatus(TEST_ACTING, deps);
    assert.ok(status.releases.some((r) => r.appId === 'notes' && r.version === '2.1.0' && r.status === 'refused'));
  });

  test('the metrics show the last sync (duration, bytes, releases taken, skipped, refused) and the releases by status', async () => {
    const answer = await mirror.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(answer.statusCode, 200);
    const value = (line: string): number => {
      const found = answer.body.split('\n').find((l) => l.startsWith(`${line} `));
      assert.ok(
        found !== undefined,
        `${line} in\n${answer.body
          .split('\n')
          .filter((l) => l.includes('mirror'))
          .join('\n')}`,
      );
      return Number(found.slice(line.length + 1));
    };
    // The last sync (the tampered notes 2.1.0): nothing taken, news 1.2.0 unchanged, notes 2.1.0 refused (2.0.0 stays listed).
    assert.equal(value('appstore_mirror_last_sync_releases{result="taken"}'), 0);
    assert.equal(value('appstore_mirror_last_sync_releases{result="unchanged"}'), 1);
    assert.equal(value('appstore_mirror_last_sync_releases{result="refused"}'), 1);
    assert.ok(
      value('appstore_mirror_last_sync_releases{result="skipped"}') >= 2,
      'news 1.0.0 and 1.1.0 are left out by the policy',
    );
    assert.ok(value('appstore_mirror_last_sync_bytes') > 0, 'the tampered archive was downloaded');
    assert.ok(value('appstore_mirror_last_sync_duration_seconds') > 0);
    assert.ok(Math.abs(value('appstore_mirror_last_sync_timestamp_seconds{kind="sync"}') - Date.now() / 1000) < 600);
    assert.equal(value('appstore_mirror_releases{status="refused"}'), 1);
    assert.equal(value('appstore_mirror_releases{status="listed"}'), 2);
  });

  test('a listed release the upstream offers again with an archive that fails stays listed as it was checked', async () => {
    const before = (await listing(mirror)).find((a) => a.id === 'news');
    await source.publish('news', '1.2.0'); // the same version, published again: a new download URL
    const url = new URL(
      (await listing(upstream)).find((a) => a.id === 'news')?.releases.find((r) => r.version === '1.2.0')?.download ??
        '',
    );
    files.serve(url.pathname, await appArchive({ id: 'news', version: '1.2.0', description: 'changed after signing' }));
    const report = await sync();
    assert.equal(report.taken, 0);
    assert.ok(
      report.problems.some((p) =>
        /^news@1\.2\.0: the upstream's new offer was not taken \(the signature does not match.*\); the archive checked before stays listed$/.test(
          p,
        ),
      ),
      JSON.stringify(report.problems),
    );
    const after = (await listing(mirror)).find((a) => a.id === 'news');
    const pick = (releases: readonly ListedRelease[] | undefined) =>
      releases?.map((r) => ({ version: r.version, download: r.download, signature: r.signature }));
    assert.deepEqual(
      pick(after?.releases),
      pick(before?.releases),
      'the release, with the archive and signature checked before',
    );
    const served = await mirror.app.inject({ url: '/api/v1/archives/news/1.2.0.tar.gz' });
    assert.equal(served.statusCode, 200);
  });

  test('an upstream that is down, or answers garbage, changes nothing', async () => {
    const listed = (await mirror.app.inject({ url: '/api/v1/apps.json' })).body;
    front.up = false;
    try {
      await assert.rejects(
        sync(),
        (error: unknown) =>
          isAppError(error) && error.code === 'upstream_unavailable' && /nothing was changed/.test(error.detail),
      );
    } finally {
      front.up = true;
    }
    assert.equal((await mirror.app.inject({ url: '/api/v1/apps.json' })).body, listed);
  });

  test('the scheduled sync runs on one node once per interval', async () => {
    const { store, holder } = mirror.container.housekeeping;
    const first = await runScheduledSync(store, holder, 60_000, deps);
    assert.ok(first !== null);
    assert.equal(first.taken, 0);
    assert.equal(await runScheduledSync(store, holder, 60_000, deps), null, 'not due again within the interval');
    assert.equal(
      await runScheduledSync(store, 'another node', 60_000, deps),
      null,
      'nor on another node: the last run is shared',
    );
  });

  test('an app id has one source: registering or publishing a mirrored app here is refused', async () => {
    const local = await userWithToken(mirror.container, 'local');
    const answer = await injectSend(mirror.app)('POST', '/api/v1/apps', {
      headers: { authorization: `Token ${local}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(answer.status, 409, answer.text);
    assert.match(answer.json<{ detail: string }>().detail, /taken from the upstream store/);
  });
});
