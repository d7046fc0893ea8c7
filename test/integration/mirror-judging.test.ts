import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Trust } from '../../src/domain/certificates/trust.ts';
import { normaliseSerial } from '../../src/domain/certificates/x509.ts';
import type { ListedApp } from '../../src/domain/listings/app-listing.ts';
import { DEFAULT_MIRROR_POLICY } from '../../src/domain/mirror/mirror-policy.ts';
import { mirrorStatus } from '../../src/domain/mirror/mirror-status.ts';
import { planMirror } from '../../src/domain/mirror/plan-mirror.ts';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { MirrorDeps, SyncOptions } from '../../src/domain/mirror/mirror-ports.ts';
import { isAppError } from '../../src/errors.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const MIRROR_URL = 'https://mirror.example.org';

/**
 * What an operator's trial of mirror mode found (issue 49): a refusal never looked at again, a
 * new CRL that did not reach listed releases, a policy that skipped apps with a refused release,
 * old nightlies piling up, kept releases left on an old URL, and a failed sync nowhere to be seen.
 */
describe(`mirror mode judges again what may have changed (${DIALECT})`, () => {
  let source: UpstreamStore;
  let mirror: TestServer;
  let base: MirrorDeps;
  let deps: MirrorDeps;

  const listing = async (): Promise<ListedApp[]> =>
    JSON.parse((await mirror.app.inject({ url: '/api/v1/apps.json' })).body) as ListedApp[];
  const versions = async (id: string): Promise<string[]> =>
    (
      (await listing()).find((a) => a.id === id)?.releases.map((r) => `${r.version}${r.isNightly ? ' nightly' : ''}`) ??
      []
    ).sort();
  const sync = (options: SyncOptions = {}) => syncMirror(TEST_ACTING, deps, 'mirror.synced', {}, options);
  const downloadOf = async (id: string, version: string): Promise<URL> =>
    new URL(
      (JSON.parse((await source.server.app.inject({ url: '/api/v1/apps.json' })).body) as ListedApp[])
        .find((a) => a.id === id)
        ?.releases.find((r) => r.version === version)?.download ?? '',
    );

  /** The upstream's trust with a revocation list revoking news's certificate, as a new CRL would. */
  const revokingNews = async (): Promise<Trust> => {
    const trust = await base.trust();
    const news = new X509Certificate(readCert('news.crt'));
    const issuer = trust.authorities.find((authority) => news.checkIssued(authority));
    assert.ok(issuer !== undefined);
    return {
      ...trust,
      revocationLists: [
        ...trust.revocationLists,
        {
          authority: issuer.fingerprint256,
          revoked: new Map([[normaliseSerial(news.serialNumber), new Date('2026-11-01T00:00:00Z')]]),
          thisUpdate: new Date('2026-11-01T00:00:00Z'),
          nextUpdate: null,
          number: 99n,
        },
      ],
    };
  };

  before(async () => {
    source = await startUpstreamStore([
      ['news', '1.0.0'],
      ['news', '1.1.0'],
      ['notes', '2.0.0'],
    ]);
    mirror = await createTestServer({
      env: { ...source.mirrorEnv, APPSTORE_PUBLIC_URL: MIRROR_URL },
      downloadCa: [TEST_TLS_CA],
    });
    assert.ok(mirror.container.mirror.deps !== null);
    base = { ...mirror.container.mirror.deps, log: () => undefined };
    deps = base;
  });
  after(async () => {
    await mirror?.close();
    await source?.close();
  });

  test('a refusal stands while nothing changed; --recheck checks it again; plan says which and why', async () => {
    await sync();
    await source.publish('notes', '2.1.0');
    const url = await downloadOf('notes', '2.1.0');
    // Damaged upstream: other bytes, the signature of the real ones.
    source.files.serve(
      url.pathname,
      await appArchive({ id: 'notes', version: '2.1.0', description: 'changed after signing' }),
    );
    const refused = await sync();
    assert.match(refused.refused.find((r) => r.release === 'notes@2.1.0')?.reason ?? '', /signature does not match/);
    assert.deepEqual(await versions('notes'), ['2.0.0']);
    const standing = await planMirror(TEST_ACTING, deps);
    assert.equal(standing.refusedBefore, 1);
    assert.deepEqual(standing.releases, []);
    const asked = await planMirror(TEST_ACTING, deps, { recheck: true });
    assert.deepEqual(
      asked.releases.map((r) => `${r.release} ${r.why}`),
      ['notes@2.1.0 refused before: --recheck'],
    );
    const rechecked = await sync({ recheck: true });
    assert.equal(rechecked.taken, 0);
    assert.equal(rechecked.refused.length, 1, 'checked again, and refused again: the bytes are still damaged');
    assert.ok(rechecked.bytes > 0, 'downloaded again');
  });

  test("the archive's bytes fixed at the same address: another size upstream, so the refusal is looked at again", async () => {
    await source.publish('notes', '2.2.0');
    const url = await downloadOf('notes', '2.2.0');
    const good = await (async () => {
      const served = await fetch(url, {
        dispatcher: (await import('../helpers/https-archive-server.ts')).testCaAgent(),
      } as RequestInit);
      return Buffer.from(await served.arrayBuffer());
    })();
    source.files.serve(url.pathname, Buffer.concat([good, Buffer.alloc(512)]));
    assert.match(
      (await sync()).refused.find((r) => r.release === 'notes@2.2.0')?.reason ?? '',
      /signature does not match/,
    );
    source.files.serve(url.pathname, good);
    const plan = await planMirror(TEST_ACTING, deps);
    assert.deepEqual(
      plan.releases.map((r) => `${r.release} ${r.why}`),
      ["notes@2.2.0 refused before: the archive's size changed upstream"],
    );
    assert.deepEqual((await sync()).refused, []);
    assert.deepEqual(await versions('notes'), ['2.2.0']);
  });

  test('a new CRL reaches what is listed: judged again without a download, refused, no longer listed; lifted, listed again', async () => {
    assert.deepEqual(await versions('news'), ['1.1.0']);
    deps = { ...base, trust: revokingNews };
    const plan = await planMirror(TEST_ACTING, deps);
    assert.equal(plan.rejudged, 2, 'the listed releases of news and notes are judged again');
    const report = await sync();
    assert.match(
      report.refused.find((r) => r.release === 'news@1.1.0')?.reason ?? '',
      /the app's certificate \(serial .*\) was revoked on 2026-11-01 by the upstream's revocation list/,
    );
    assert.deepEqual(await versions('news'), [], 'news is listed no more: a Nextcloud server would refuse it');
    assert.deepEqual(await versions('notes'), ['2.2.0'], 'notes is not revoked');
    const status = await mirrorStatus(TEST_ACTING, deps);
    assert.ok(status.releases.some((r) => r.appId === 'news' && r.status === 'refused' && /revoked/.test(r.reason)));
    // The CRL without it again (another trust): the refusal is looked at again, and news listed.
    deps = base;
    assert.deepEqual(
      (await planMirror(TEST_ACTING, deps)).releases.map((r) => `${r.release} ${r.why}`),
      ['news@1.1.0 refused before: the trust settings changed'],
    );
    await sync();
    assert.deepEqual(await versions('news'), ['1.1.0']);
  });

  test('the policy applies to every app, one with a refused release too; one nightly per app', async () => {
    deps = { ...base, policy: { ...DEFAULT_MIRROR_POLICY, nightlies: true } };
    await source.publish('notes', '2.3.0', undefined, true);
    await sync();
    assert.deepEqual(await versions('notes'), ['2.2.0', '2.3.0 nightly']);
    // Upstream replaces its nightly (a new nightly replaces every earlier one there).
    await source.publish('notes', '2.4.0', undefined, true);
    await sync();
    assert.deepEqual(
      await versions('notes'),
      ['2.2.0', '2.4.0 nightly'],
      'the older nightly is not kept beside the new one',
    );
    // A refused release of notes, then nightlies off: the nightly goes all the same.
    await source.publish('notes', '2.5.0');
    const url = await downloadOf('notes', '2.5.0');
    source.files.serve(url.pathname, await appArchive({ id: 'notes', version: '2.5.0', description: 'tampered' }));
    deps = base;
    const report = await sync();
    assert.ok(report.refused.some((r) => r.release === 'notes@2.5.0'));
    assert.deepEqual(
      await versions('notes'),
      ['2.2.0'],
      'the release before the refused one stays; the nightly the policy no longer takes goes',
    );
  });

  test('a kept release (gone upstream) follows a new public URL', async () => {
    deps = { ...base, policy: { ...DEFAULT_MIRROR_POLICY, releases: 'all' } };
    await sync();
    assert.deepEqual(await versions('news'), ['1.0.0', '1.1.0']);
    const deleted = await source.server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/news/releases/1.0.0',
      headers: { authorization: `Token ${source.token}` },
    });
    assert.equal(deleted.statusCode, 204);
    await sync();
    assert.deepEqual(
      await versions('news'),
      ['1.0.0', '1.1.0'],
      'kept: gone upstream, APPSTORE_MIRROR_DROP_REMOVED unset',
    );
    deps = {
      ...deps,
      archiveUrl: (app, version, nightly) =>
        `https://new.example.org/api/v1/archives/${app}/${nightly ? 'nightly/' : ''}${version}.tar.gz`,
    };
    await sync();
    const news = (await listing()).find((a) => a.id === 'news');
    assert.deepEqual(news?.releases.map((r) => r.download).sort(), [
      'https://new.example.org/api/v1/archives/news/1.0.0.tar.gz',
      'https://new.example.org/api/v1/archives/news/1.1.0.tar.gz',
    ]);
  });

  test('status says when the upstream was last checked, and a sync that failed, also in the audit log', async () => {
    const checked = await mirrorStatus(TEST_ACTING, base);
    assert.ok(checked.lastChecked !== null);
    assert.equal(checked.lastFailure, null);
    deps = {
      ...base,
      upstream: {
        ...base.upstream,
        document: async () =>
          Promise.reject(new (await import('../../src/errors.ts')).AppError('invalid_download', 'connection refused')),
      },
    };
    await assert.rejects(sync(), (error: unknown) => isAppError(error) && error.code === 'upstream_unavailable');
    const status = await mirrorStatus(TEST_ACTING, base);
    assert.match(
      status.lastFailure?.reason ?? '',
      /could not be read \(categories\.json: connection refused\): nothing was changed/,
    );
    const [entry] = await mirror.container.audit.find({ event: 'mirror.sync_failed', limit: 1 });
    assert.equal(entry?.details['code'], 'upstream_unavailable');
    deps = base;
    await sync();
    assert.equal(
      (await mirrorStatus(TEST_ACTING, base)).lastFailure,
      null,
      'a sync that worked since: no failure shown',
    );
  });

  test('an app gone from the upstream altogether is judged by the certificate its kept entries hold: a new CRL delists it', async () => {
    deps = base;
    const gone = await source.server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/news',
      headers: { authorization: `Token ${source.token}` },
    });
    assert.equal(gone.statusCode, 204);
    await sync();
    assert.notDeepEqual(await versions('news'), [], 'kept: gone upstream, APPSTORE_MIRROR_DROP_REMOVED unset');
    deps = { ...base, trust: revokingNews };
    const report = await sync();
    assert.ok(
      report.refused.some((r) => r.release.startsWith('news@') && /was revoked on 2026-11-01/.test(r.reason)),
      JSON.stringify(report.refused),
    );
    assert.deepEqual(await versions('news'), []);
  });
});
