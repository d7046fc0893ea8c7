import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { revokeCertificate } from '../../src/domain/certificates/revoke-certificate.ts';
import { toBool } from '../../src/storage/schema.ts';
import { createUser } from '../helpers/accounts.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { archive as fixtureArchive } from '../helpers/release-fixtures.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { contentVersion } from '../helpers/listing-bytes.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

const ENV = {
  APPSTORE_CA_CERT: certFile('chain.pem'),
  APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
  APPSTORE_DOWNLOAD_TIMEOUT_SECONDS: '1',
  APPSTORE_MAX_ARCHIVE_MIB: '1',
};

describe(`publishing and deleting releases (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  const tokens: Record<string, string> = {};
  let served = 0;

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({ env: ENV, downloadCa: [TEST_TLS_CA] });
    await importCategories(
      ['multimedia', 'tools', 'office'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    for (const name of ['alice', 'bob', 'carol'])
      tokens[name] = await getOrCreateToken(
        await createUser(server.container, name, null),
        TEST_ACTING,
        server.container.accounts,
      );
    for (const [app, who] of [
      ['news', 'alice'],
      ['mail', 'alice'],
    ] as const) {
      const response = await register(
        who,
        readCert(app === 'news' ? 'news.crt' : 'mail-revoked.crt'),
        readCert(app === 'news' ? 'news.sig' : 'mail-revoked.sig'),
      );
      assert.equal(response.statusCode, 201, response.body);
    }
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  function register(who: string, certificate: string, signature: string) {
    return server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${tokens[who]}` },
      payload: { certificate, signature },
    });
  }
  /** Serves the bytes at a fresh URL and returns it. */
  function host(bytes: Buffer): string {
    served += 1;
    files.serve(`/a${served}.tar.gz`, bytes);
    return `${files.origin}/a${served}.tar.gz`;
  }
  function publish(who: string | null, body: Record<string, unknown>, target: TestServer = server) {
    return target.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: who === null ? {} : { authorization: `Token ${tokens[who]}` },
      payload: body,
    });
  }
  async function publishArchive(who: string, bytes: Buffer, options: { key?: string; nightly?: boolean } = {}) {
    return publish(who, {
      download: host(bytes),
      signature: signWith(options.key ?? 'news', bytes),
      ...(options.nightly === undefined ? {} : { nightly: options.nightly }),
    });
  }
  function refused(response: Awaited<ReturnType<typeof publish>>, status: number, code: string, detail?: RegExp): void {
    assert.equal(response.statusCode, status, response.body);
    assert.equal(response.json().code, code, response.body);
    if (detail !== undefined) assert.match(response.json().detail, detail);
  }
  const db = () => server.container.database.db;
  const releases = async (appId = 'news') =>
    (
      await db()
        .selectFrom('releases')
        .select(['version', 'is_nightly'])
        .where('app_id', '=', appId)
        .orderBy('id')
        .execute()
    ).map((r) => `${r.version}${toBool(r.is_nightly) ? ' nightly' : ''}`);
  const appName = async () =>
    (
      await db()
        .selectFrom('app_translations')
        .select('name')
        .where('app_id', '=', 'news')
        .where('language', '=', 'en')
        .executeTakeFirst()
    )?.name;

  test('401 without credentials, whatever the body', async () => {
    const response = await publish(null, { download: 'http://not-even-https' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['www-authenticate'], 'Basic realm="appstore", Token');
  });

  test('body checks: HTTPS download, base64 signature, boolean nightly', async () => {
    refused(await publish('alice', { signature: 'AAAA' }), 400, 'invalid_request');
    const http = await publish('alice', { download: 'http://example.org/news.tar.gz', signature: 'AAAA' });
    refused(http, 400, 'invalid_request');
    assert.deepEqual(http.json().errors, { download: ['Enter a valid HTTPS URL.'] });
    const signature = await publish('alice', { download: 'https://example.org/news.tar.gz', signature: 'not base64!' });
    assert.deepEqual(Object.keys(signature.json().errors), ['signature']);
    const nightly = await publish('alice', {
      download: 'https://example.org/news.tar.gz',
      signature: 'AAAA',
      nightly: 'true',
    });
    refused(nightly, 400, 'invalid_request');
    assert.deepEqual(Object.keys(nightly.json().errors), ['nightly']);
  });

  test('download failures: HTTP status, too large (with and without Content-Length), slow, redirect to HTTP', async () => {
    refused(
      await publish('alice', { download: `${files.origin}/nothing.tar.gz`, signature: 'AAAA' }),
      400,
      'invalid_download',
      /^download failed: HTTP 404 from localhost$/,
    );
    files.handle('/big-length', (_q, r) =>
      r.writeHead(200, { 'content-length': 2 * 1024 * 1024 }).end(Buffer.alloc(2 * 1024 * 1024)),
    );
    files.handle('/big-chunked', (_q, r) => {
      r.writeHead(200);
      r.write(Buffer.alloc(800 * 1024));
      r.end(Buffer.alloc(800 * 1024));
    });
    files.handle('/slow', (_q, r) => {
      r.writeHead(200);
      r.write('x');
      setTimeout(() => r.end(), 2500).unref();
    });
    files.handle('/to-http', (_q, r) =>
      r.writeHead(302, { location: `http://localhost:${files.port}/a1.tar.gz` }).end(),
    );
    refused(
      await publish('alice', { download: `${files.origin}/big-length`, signature: 'AAAA' }),
      400,
      'invalid_download',
      /^archive is larger than 1 MiB$/,
    );
    refused(
      await publish('alice', { download: `${files.origin}/big-chunked`, signature: 'AAAA' }),
      400,
      'invalid_download',
      /^archive is larger than 1 MiB$/,
    );
    refused(
      await publish('alice', { download: `${files.origin}/slow`, signature: 'AAAA' }),
      400,
      'invalid_download',
      /^download timed out after 1 s$/,
    );
    refused(
      await publish('alice', { download: `${files.origin}/to-http`, signature: 'AAAA' }),
      400,
      'invalid_download',
      /^redirect to a non-HTTPS URL refused/,
    );
  });

  test('private addresses are refused unless the switch allows them', async () => {
    const guarded = await createTestServer({
      env: { ...ENV, APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '0' },
      downloadCa: [TEST_TLS_CA],
      database: server.database,
    });
    const bytes = await appArchive({ version: '0.0.1' });
    const url = host(bytes);
    refused(
      await publish('alice', { download: url, signature: signWith('news', bytes) }, guarded),
      400,
      'invalid_download',
      /localhost resolves to a private, loopback or reserved address/,
    );
    await guarded.app.close();
  });

  test('archive and info.xml problems are 400s with their own codes', async () => {
    refused(
      await publishArchive('alice', fixtureArchive('symlink-info-xml.tar.gz')),
      400,
      'invalid_archive',
      /symbolic link/,
    );
    refused(
      await publishArchive('alice', fixtureArchive('bomb-1gib.tar.gz')),
      400,
      'invalid_archive',
      /decompression bomb/,
    );
    refused(
      await publishArchive('alice', await appArchive({ version: '1.0' })),
      400,
      'invalid_info_xml',
      /<version> line \d+/,
    );
    refused(
      await publishArchive('alice', await appArchive({ folder: 'notes' })),
      400,
      'invalid_archive',
      /folder is 'notes' but info\.xml's <id> is 'news'/,
    );
    refused(
      await publishArchive('alice', await appArchive({ category: 'games' })),
      400,
      'invalid_info_xml',
      /category 'games' does not exist; valid ones: multimedia, office, tools/,
    );
  });

  test('an app nobody registered: 400', async () => {
    refused(
      await publishArchive('alice', await appArchive({ id: 'notes' }), { key: 'notes' }),
      400,
      'app_not_registered',
      /^App notes is not registered: register it first/,
    );
  });

  test('strangers get 403; bad signatures 400 (another key, another archive)', async () => {
    const bytes = await appArchive({ version: '1.0.0' });
    // Bob maintains no app: refused before anything is downloaded (issue 49).
    let fetched = 0;
    files.handle('/counted.tar.gz', (_request, response) => {
      fetched += 1;
      response.end(bytes);
    });
    refused(
      await publish('bob', { download: `${files.origin}/counted.tar.gz`, signature: signWith('news', bytes) }),
      403,
      'forbidden',
      /You own or co-maintain no app here/,
    );
    assert.equal(fetched, 0, 'nothing was downloaded');
    // With an app of his own, the archive is looked at: news is not his.
    assert.equal((await register('bob', readCert('notes.crt'), readCert('notes.sig'))).statusCode, 201);
    refused(
      await publish('bob', { download: `${files.origin}/counted.tar.gz`, signature: signWith('news', bytes) }),
      403,
      'forbidden',
      /owner and co-maintainers of news/,
    );
    assert.equal(fetched, 1);
    assert.equal(
      (
        await server.app.inject({
          method: 'DELETE',
          url: '/api/v1/apps/notes',
          headers: { authorization: `Token ${tokens.bob}` },
        })
      ).statusCode,
      204,
    );
    refused(
      await publish('alice', { download: host(bytes), signature: signWith('notes', bytes) }),
      400,
      'invalid_signature',
      /does not match this archive/,
    );
    refused(
      await publish('alice', {
        download: host(bytes),
        signature: signWith('news', Buffer.concat([bytes, Buffer.from('x')])),
      }),
      400,
      'invalid_signature',
    );
  });

  test('nothing is stored on any failure', async () => {
    assert.deepEqual(await releases(), []);
  });

  test('201 creates; the same version again is 200 and updates; a co-maintainer may publish', async () => {
    const before = await contentVersion(server);
    const first = await appArchive({ version: '1.0.0', name: 'News One' });
    const created = await publishArchive('alice', first);
    assert.equal(created.statusCode, 201);
    // Where the publish's time went, step by step, in milliseconds.
    const steps = String(created.headers['server-timing'])
      .split(', ')
      .map((entry) => /^(\w+);dur=(\d+(?:\.\d)?)$/.exec(entry));
    assert.deepEqual(
      steps.map((step) => step?.[1]),
      ['queue', 'transfer', 'check', 'save'],
      String(created.headers['server-timing']),
    );
    assert.ok(
      steps.every((step) => Number(step?.[2]) >= 0),
      String(created.headers['server-timing']),
    );
    assert.ok((await contentVersion(server)) > before, 'the listings version moved');
    const again = await appArchive({ version: '1.0.0', name: 'News One, rebuilt' });
    assert.equal((await publishArchive('carol', again)).statusCode, 200);
    assert.deepEqual(await releases(), ['1.0.0']);
    const row = await db().selectFrom('releases').selectAll().where('app_id', '=', 'news').executeTakeFirstOrThrow();
    assert.equal(row.archive_size, again.length);
    assert.match(row.archive_sha256, /^[0-9a-f]{64}$/);
    assert.equal(row.raw_platform_version_spec, '>=30 <=32');
    assert.equal(row.platform_version_spec, '>=30.0.0 <33.0.0');
    // The store keeps the archive and lists its own URL; the developer's is kept beside it.
    assert.equal(row.download, 'http://127.0.0.1:8000/api/v1/archives/news/1.0.0.tar.gz');
    assert.match(row.developer_download ?? '', /^https:\/\/localhost:\d+\/a\d+\.tar\.gz$/);
    assert.doesNotMatch(row.signature, /\s/);
    assert.equal(await appName(), 'News One, rebuilt');
    const changelog = await db()
      .selectFrom('release_translations')
      .select(['language', 'changelog'])
      .where('release_id', '=', row.id)
      .execute();
    assert.deepEqual(changelog, [{ language: 'en', changelog: '- this release' }]);
  });

  test('the latest-version rule, both ways', async () => {
    assert.equal(
      (
        await publishArchive(
          'alice',
          await appArchive({ version: '2.0.0', name: 'News Two', website: 'https://two.example' }),
        )
      ).statusCode,
      201,
    );
    assert.equal(await appName(), 'News Two');
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '1.5.0', name: 'Older' }))).statusCode,
      201,
    );
    assert.equal(await appName(), 'News Two', 'an older stable release leaves the app data');
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '3.0.0-beta.1', name: 'Beta' }))).statusCode,
      201,
    );
    assert.equal(await appName(), 'News Two', 'a pre-release leaves it');
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '2.10.0', name: 'News Two Ten' }))).statusCode,
      201,
    );
    assert.equal(await appName(), 'News Two Ten', 'numeric order: 2.10.0 is above 2.0.0');
    const website = await db().selectFrom('apps').select('website').where('id', '=', 'news').executeTakeFirstOrThrow();
    assert.equal(website.website, '', 'app-level fields follow the latest release, including removals');
  });

  test('a nightly replaces every earlier nightly; its changelog is Unreleased', async () => {
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '3.0.0', name: 'Nightly' }), { nightly: true }))
        .statusCode,
      201,
    );
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '3.1.0', name: 'Nightly' }), { nightly: true }))
        .statusCode,
      201,
    );
    assert.equal(
      (await publishArchive('alice', await appArchive({ version: '3.1.0', name: 'Nightly' }), { nightly: true }))
        .statusCode,
      200,
    );
    const nightlies = (await releases()).filter((r) => r.endsWith('nightly'));
    assert.deepEqual(nightlies, ['3.1.0 nightly']);
    assert.notEqual(await appName(), 'Nightly', 'a nightly is not the latest while stable releases exist');
    const row = await db()
      .selectFrom('releases')
      .select('id')
      .where('app_id', '=', 'news')
      .where('is_nightly', '=', true)
      .executeTakeFirstOrThrow();
    const changelog = await db()
      .selectFrom('release_translations')
      .select('changelog')
      .where('release_id', '=', row.id)
      .executeTakeFirstOrThrow();
    assert.equal(changelog.changelog, '- nightly work');
  });

  test('the current certificate revoked: publishing is refused', async () => {
    await revokeCertificate(
      readCert('mail-revoked.crt'),
      await server.container.trust(),
      server.container.revocations,
      new Date(),
      TEST_ACTING,
    );
    const bytes = await appArchive({ id: 'mail' });
    refused(
      await publishArchive('alice', bytes, { key: 'mail-revoked' }),
      400,
      'certificate_revoked',
      /^The certificate registered for mail can no longer be used: The certificate was revoked on/,
    );
  });

  test('concurrent publishes of one version: one release, one 201 and one 200, no 5xx', async () => {
    const bytes = await appArchive({ version: '4.0.0' });
    const body = { download: host(bytes), signature: signWith('news', bytes) };
    const responses = await Promise.all([publish('alice', body), publish('carol', body)]);
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 201]);
    assert.equal((await releases()).filter((r) => r === '4.0.0').length, 1);
  });

  test('deleting releases: 401, 400 for a malformed version, 404, 403, then 204', async () => {
    const del = (who: string | null, url: string) =>
      server.app.inject({
        method: 'DELETE',
        url,
        headers: who === null ? {} : { authorization: `Token ${tokens[who]}` },
      });
    assert.equal((await del(null, '/api/v1/apps/news/releases/1.0.0')).statusCode, 401);
    refused(await del('alice', '/api/v1/apps/news/releases/1.0'), 400, 'invalid_request');
    refused(
      await del('alice', '/api/v1/apps/news/releases/9.9.9'),
      404,
      'release_not_found',
      /^There is no release 9\.9\.9 of news\.$/,
    );
    refused(
      await del('alice', '/api/v1/apps/news/releases/nightly/1.0.0'),
      404,
      'release_not_found',
      /nightly release 1\.0\.0/,
    );
    refused(await del('alice', '/api/v1/apps/nope/releases/1.0.0'), 404, 'release_not_found');
    refused(await del('bob', '/api/v1/apps/news/releases/1.0.0'), 403, 'forbidden');
    assert.equal((await del('carol', '/api/v1/apps/news/releases/1.0.0')).statusCode, 204);
    assert.equal((await del('alice', '/api/v1/apps/news/releases/nightly/3.1.0')).statusCode, 204);
    assert.ok(!(await releases()).includes('1.0.0'));
    assert.ok(!(await releases()).includes('3.1.0 nightly'));
    assert.equal(
      (await del('alice', '/api/v1/apps/news/releases/1.0.0/')).statusCode,
      404,
      'trailing slash tolerated; already gone',
    );
  });

  test('concurrent deletes of one release: only the one that deleted it gets 204, the others 404', async () => {
    for (let round = 0; round < 3; round++) {
      const bytes = await appArchive({ version: `6.0.${round}` });
      assert.equal(
        (await publish('alice', { download: host(bytes), signature: signWith('news', bytes) })).statusCode,
        201,
      );
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          server.app.inject({
            method: 'DELETE',
            url: `/api/v1/apps/news/releases/6.0.${round}`,
            headers: { authorization: `Token ${tokens.alice}` },
          }),
        ),
      );
      const statuses = responses.map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [204, ...Array<number>(9).fill(404)], `round ${round}: ${statuses.join(' ')}`);
      assert.ok(!(await releases()).includes(`6.0.${round}`));
    }
  });

  test('deleting the app: co-maintainers 403, the owner 204 with every release, then 404; GET is 405', async () => {
    const del = (who: string) =>
      server.app.inject({
        method: 'DELETE',
        url: '/api/v1/apps/news',
        headers: { authorization: `Token ${tokens[who]}` },
      });
    const get = await server.app.inject({ method: 'GET', url: '/api/v1/apps/news' });
    assert.equal(get.statusCode, 405);
    assert.equal(get.headers.allow, 'DELETE');
    assert.equal((await server.app.inject({ method: 'DELETE', url: '/api/v1/apps/news' })).statusCode, 401);
    refused(await del('carol'), 403, 'forbidden', /Only the owner of news/);
    assert.equal((await del('alice')).statusCode, 204);
    assert.deepEqual(await releases(), []);
    refused(await del('alice'), 404, 'app_not_found');
  });

  test('a publish racing the deletion of its app ends consistent, never a 5xx', async () => {
    assert.equal((await register('alice', readCert('news.crt'), readCert('news.sig'))).statusCode, 201);
    const bytes = await appArchive({ version: '5.0.0' });
    const [published, deleted] = await Promise.all([
      publish('alice', { download: host(bytes), signature: signWith('news', bytes) }),
      server.app.inject({
        method: 'DELETE',
        url: '/api/v1/apps/news',
        headers: { authorization: `Token ${tokens.alice}` },
      }),
    ]);
    assert.ok([201, 400].includes(published.statusCode), published.body);
    assert.equal(deleted.statusCode, 204);
    const app = await db().selectFrom('apps').select('id').where('id', '=', 'news').executeTakeFirst();
    assert.equal(app, undefined);
    assert.deepEqual(await releases(), [], 'no release outlives its app');
  });

  test('concurrent deletes of one app: one 204, the others 404', async () => {
    assert.equal((await register('alice', readCert('news.crt'), readCert('news.sig'))).statusCode, 201);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.app.inject({
          method: 'DELETE',
          url: '/api/v1/apps/news',
          headers: { authorization: `Token ${tokens.alice}` },
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [204, ...Array<number>(9).fill(404)], statuses.join(' '));
  });
});

describe(`publishing limits (${DIALECT})`, () => {
  test('100 a day per user by default; here 2, then 429 with Retry-After', async () => {
    const files = await startArchiveServer();
    const server = await createTestServer({
      env: { ...ENV, APPSTORE_UPLOADS_PER_DAY: '2' },
      downloadCa: [TEST_TLS_CA],
    });
    const token = await getOrCreateToken(
      await createUser(server.container, 'alice', null),
      TEST_ACTING,
      server.container.accounts,
    );
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201);
    const post = () =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/releases',
        headers: { authorization: `Token ${token}` },
        payload: { download: `${files.origin}/none.tar.gz`, signature: 'AAAA' },
      });
    assert.equal((await post()).statusCode, 400);
    assert.equal((await post()).statusCode, 400);
    const limited = await post();
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /at most 2 in a day/);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    await server.close();
    await files.close();
  });
});
