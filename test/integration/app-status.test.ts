import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deprecateApp, retireRelease, setOrphan } from '../../src/domain/apps/app-status.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';
import { eventually } from '../helpers/eventually.ts';

type Listed = Array<{
  id: string;
  isDeprecated?: boolean;
  deprecationReason?: string;
  successor?: string;
  isOrphan?: boolean;
  retiredReleases?: Array<{ version: string; isNightly: boolean; reason: string }>;
  releases: Array<{ version: string }>;
}>;

/**
 * Saying an app is over (issue 52): deprecation with a reason and a successor, "looking for
 * maintainers", retired releases: in the listings (only where set), on the pages, audited, by
 * the manage page and the CLI, and carried over by a mirror.
 */
describe(`deprecation, orphaning and retired releases (${DIALECT})`, () => {
  let upstream: UpstreamStore;
  let server: TestServer;

  before(async () => {
    // The upstream stand-in is a store with news 1.0.0 and 1.1.0 and notes 2.0.0, owned by "developer".
    upstream = await startUpstreamStore([
      ['news', '1.0.0'],
      ['news', '1.1.0'],
      ['notes', '2.0.0'],
    ]);
    server = upstream.server;
    await createUser(server.container, 'cora', 'cora password here');
    await addCoMaintainer('news', 'cora', TEST_ACTING, server.container.appManagement);
  });
  after(() => upstream.close());

  const listed = async (): Promise<Listed> => (await server.app.inject({ url: '/api/v1/apps.json' })).json();
  const app = async (id: string) => (await listed()).find((a) => a.id === id);

  test('a deprecated app lists why and its successor; other apps list exactly as before', async () => {
    const before = (await server.app.inject({ url: '/api/v1/apps.json' })).json() as Listed;
    await deprecateApp(
      'news',
      { reason: '  Replaced by  notes. ', successor: 'notes' },
      TEST_ACTING,
      server.container.appStatus,
    );
    const news = await app('news');
    assert.equal(news?.isDeprecated, true);
    assert.equal(news?.deprecationReason, 'Replaced by notes.');
    assert.equal(news?.successor, 'notes');
    const notes = await app('notes');
    assert.deepEqual(
      notes,
      before.find((a) => a.id === 'notes'),
      'notes unchanged, no new keys',
    );
    assert.ok(!('isDeprecated' in (notes ?? {})));
    await assert.rejects(
      deprecateApp('news', { reason: 'x', successor: 'nothere' }, TEST_ACTING, server.container.appStatus),
      /there is no app nothere in this store/,
    );
    await assert.rejects(
      deprecateApp('news', { reason: 'x', successor: 'news' }, TEST_ACTING, server.container.appStatus),
      /cannot succeed itself/,
    );
    await assert.rejects(
      deprecateApp('news', { reason: '   ', successor: '' }, TEST_ACTING, server.container.appStatus),
      /say why/,
    );
  });

  test('pages: a banner with the successor; off the home page and out of a search unless asked for', async () => {
    const page = await server.app.inject({ url: '/apps/news', headers: { accept: 'text/html' } });
    assert.match(
      page.body,
      /<div class="notice warning" role="note"><p><strong>Deprecated by its developer\.<\/strong> Replaced by notes\.<\/p><p>Use instead: <a href="\/apps\/notes">notes<\/a><\/p><\/div>/,
    );
    const home = await server.app.inject({ url: '/', headers: { accept: 'text/html' } });
    assert.doesNotMatch(home.body, /href="\/apps\/news"/);
    assert.match(home.body, /href="\/apps\/notes"/);
    const search = await server.app.inject({ url: '/search?q=news', headers: { accept: 'text/html' } });
    assert.doesNotMatch(search.body, /href="\/apps\/news"/);
    const asked = await server.app.inject({ url: '/search?q=news&deprecated=1', headers: { accept: 'text/html' } });
    assert.match(asked.body, /href="\/apps\/news"/);
    assert.match(asked.body, /<span class="mark">deprecated<\/span>/);
  });

  test('looking for maintainers: isOrphan in the listings, the page asks for help', async () => {
    await setOrphan('notes', true, TEST_ACTING, server.container.appStatus);
    assert.equal((await app('notes'))?.isOrphan, true);
    const page = await server.app.inject({ url: '/apps/notes', headers: { accept: 'text/html' } });
    assert.match(page.body, /Looking for maintainers\./);
  });

  test('a retired release is offered no more (listings, archive), listed as retired; offered again', async () => {
    await retireRelease(
      { appId: 'news', version: '1.1.0', nightly: false },
      { reason: 'security', note: 'CVE-2026-0001' },
      TEST_ACTING,
      server.container.appStatus,
    );
    const news = await app('news');
    assert.deepEqual(
      news?.releases.map((r) => r.version),
      ['1.0.0'],
    );
    assert.deepEqual(news?.retiredReleases, [{ version: '1.1.0', isNightly: false, reason: 'security' }]);
    const platform = (await server.app.inject({ url: '/api/v1/platform/31.0.0/apps.json' })).json() as Listed;
    assert.deepEqual(
      platform.find((a) => a.id === 'news')?.releases.map((r) => r.version),
      ['1.0.0'],
    );
    await assert.rejects(
      retireRelease(
        { appId: 'news', version: '1.1.0', nightly: false },
        { reason: 'obsolete', note: '' },
        TEST_ACTING,
        server.container.appStatus,
      ),
      /reason: one of security, broken, other/,
    );
    const events = (await server.container.audit.find({ appId: 'news', limit: 20 })).map((r) => r.event);
    for (const event of ['app.deprecated', 'release.retired'] as const) assert.ok(events.includes(event), event);
  });

  test('the owner on the manage page; a co-maintainer may retire but not deprecate', async () => {
    const cora = new WebClient(server.app);
    await cora.get('/account/login');
    assert.equal(
      (await cora.post('/account/login', { username: 'cora', password: 'cora password here', next: '/developer' }))
        .statusCode,
      303,
    );
    const page = await cora.get('/developer/apps/news');
    assert.match(page.body, /Retired releases/);
    assert.doesNotMatch(page.body, /Deprecate the app|Take the deprecation back/, 'deprecation is the owner’s');
    assert.match(page.body, /<strong>1\.1\.0<\/strong>: a security problem — CVE-2026-0001/);
    const restored = await cora.post('/developer/apps/news/releases/retire', { release: '1.1.0', undo: 'on' });
    assert.equal(restored.statusCode, 200, restored.body.slice(0, 300));
    assert.match(restored.body, /Release 1\.1\.0 is offered again\./);
    assert.deepEqual((await app('news'))?.releases.map((r) => r.version).sort(), ['1.0.0', '1.1.0']);
    const refused = await cora.post('/developer/apps/news/status/deprecate', { reason: 'mine now' });
    assert.equal(refused.statusCode, 403);
  });

  test('the command line: deprecate --undo, orphan --undo, release retire', async () => {
    const env = server.database.env;
    assert.equal(
      (await runCommand(['app', 'deprecate', 'news', '--undo'], env)).stdout.trim(),
      'news is no longer deprecated',
    );
    assert.equal(
      (await runCommand(['app', 'orphan', 'notes', '--undo'], env)).stdout.trim(),
      'notes no longer looks for maintainers',
    );
    const retired = await runCommand(
      ['release', 'retire', 'news', '1.0.0', '--reason', 'broken', '--note', 'crashes'],
      env,
    );
    assert.equal(retired.code, 0, retired.stderr);
    // The server hears of the command's writes as of another process's: a request through its
    // HTTP front reads the committed content version first (app.ts), which inject() bypasses.
    await eventually(async () => {
      await server.container.versions.committedNow();
      const news = await app('news');
      assert.equal(news?.isDeprecated, undefined);
      assert.deepEqual(news?.retiredReleases, [{ version: '1.0.0', isNightly: false, reason: 'broken' }]);
    });
    const usage = await runCommand(['app', 'deprecate', 'news'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /give --reason, or --undo/);
  });

  test('a mirror carries deprecation, orphaning and retired releases over', async () => {
    await deprecateApp('notes', { reason: 'Use news.', successor: 'news' }, TEST_ACTING, server.container.appStatus);
    await setOrphan('news', true, TEST_ACTING, server.container.appStatus);
    // The mirror takes the newest release (its default policy), 1.1.0; then the upstream retires it.
    await retireRelease(
      { appId: 'news', version: '1.0.0', nightly: false },
      null,
      TEST_ACTING,
      server.container.appStatus,
    );
    const mirror = await createTestServer({ env: { ...upstream.mirrorEnv }, downloadCa: [TEST_TLS_CA] });
    try {
      assert.ok(mirror.container.mirror.deps !== null);
      const deps = { ...mirror.container.mirror.deps, log: () => undefined };
      await syncMirror(TEST_ACTING, deps);
      const first = (await mirror.app.inject({ url: '/api/v1/apps.json' })).json() as Listed;
      assert.deepEqual(
        first.find((a) => a.id === 'news')?.releases.map((r) => r.version),
        ['1.1.0'],
      );
      await retireRelease(
        { appId: 'news', version: '1.1.0', nightly: false },
        { reason: 'broken', note: '' },
        TEST_ACTING,
        server.container.appStatus,
      );
      await syncMirror(TEST_ACTING, deps);
      const apps = (await mirror.app.inject({ url: '/api/v1/apps.json' })).json() as Listed;
      const notes = apps.find((a) => a.id === 'notes');
      assert.equal(notes?.isDeprecated, true);
      assert.equal(notes?.successor, 'news');
      const news = apps.find((a) => a.id === 'news');
      assert.equal(news?.isOrphan, true);
      assert.deepEqual(
        news?.releases.map((r) => r.version),
        ['1.0.0'],
      );
      assert.deepEqual(news?.retiredReleases ?? [], [{ version: '1.1.0', isNightly: false, reason: 'broken' }]);
    } finally {
      await mirror.close();
    }
  });
});
