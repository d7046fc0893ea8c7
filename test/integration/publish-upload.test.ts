import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { createUser } from '../helpers/accounts.ts';
import { multipartForm as form } from '../helpers/multipart.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { freePort } from '../helpers/serve-process.ts';
import { importTestCategories } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const run = promisify(execFile);

/**
 * Publishing with the archive itself (issue 52): what a CI job sends with curl -F, no web host.
 * The same checks and statuses as from a URL; the archive is kept and listed at the store's URL.
 */
describe(`publishing an uploaded archive (${DIALECT})`, () => {
  let server: TestServer;
  let origin: string;
  const tokens: Record<string, string> = {};

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // Kept even where published URLs are not: the store is the only place an upload can come from.
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_PUBLIC_URL: origin,
        APPSTORE_KEEP_ARCHIVES: '0',
        APPSTORE_MAX_ARCHIVE_MIB: '1',
      },
    });
    await importTestCategories(server.container);
    for (const name of ['alice', 'bob'])
      tokens[name] = await getOrCreateToken(
        await createUser(server.container, name, null),
        TEST_ACTING,
        server.container.accounts,
      );
    for (const [who, cert] of [
      ['alice', 'news'],
      ['bob', 'mail-revoked'],
    ] as const) {
      const registered = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps',
        headers: { authorization: `Token ${tokens[who]}` },
        payload: { certificate: readCert(`${cert}.crt`), signature: readCert(`${cert}.sig`) },
      });
      assert.equal(registered.statusCode, 201, registered.body);
    }
    await server.app.listen({ host: '127.0.0.1', port });
  });
  after(() => server.close());

  const upload = (who: string | null, parts: Parameters<typeof form>[0]) => {
    const body = form(parts);
    return server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { ...body.headers, ...(who === null ? {} : { authorization: `Token ${tokens[who]}` }) },
      payload: body.payload,
    });
  };
  const releases = () =>
    server.container.database.db
      .selectFrom('releases')
      .select(['version', 'is_nightly', 'download', 'developer_download', 'archive_sha256'])
      .orderBy('id')
      .execute();
  const refused = (response: { statusCode: number; body: string }, status: number, code: string, detail: RegExp) => {
    assert.equal(response.statusCode, status, response.body);
    const body = JSON.parse(response.body) as { code: string; detail: string };
    assert.equal(body.code, code, response.body);
    assert.match(body.detail, detail);
  };

  test('curl -F, as a GitHub Actions job runs it: 201, kept, listed at the store URL, served', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-upload-'));
    try {
      const bytes = await appArchive({ version: '1.0.0' });
      fs.writeFileSync(path.join(dir, 'news.tar.gz'), bytes);
      const { stdout } = await run(
        'curl',
        [
          '--silent',
          '--show-error',
          '--write-out',
          '%{http_code}',
          '-H',
          `Authorization: Token ${tokens['alice']}`,
          '-F',
          'archive=@news.tar.gz',
          '-F',
          `signature=${signWith('news', bytes)}`,
          `${origin}/api/v1/apps/releases`,
        ],
        { cwd: dir },
      );
      assert.equal(stdout.trim(), '201');
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      assert.deepEqual(await releases(), [
        {
          version: '1.0.0',
          is_nightly: DIALECT === 'sqlite' ? 0 : false,
          download: `${origin}/api/v1/archives/news/1.0.0.tar.gz`,
          developer_download: '',
          archive_sha256: sha256,
        },
      ]);
      const served = await fetch(`${origin}/api/v1/archives/news/1.0.0.tar.gz`);
      assert.equal(served.status, 200);
      assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes));
      const listed = (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{
        id: string;
        releases: Array<{ download: string }>;
      }>;
      assert.equal(
        listed.find((a) => a.id === 'news')?.releases[0]?.download,
        `${origin}/api/v1/archives/news/1.0.0.tar.gz`,
      );
      const audit = await server.container.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('event', '=', 'release.published')
        .executeTakeFirstOrThrow();
      assert.deepEqual((({ download, uploaded, kept }) => ({ download, uploaded, kept }))(JSON.parse(audit.details)), {
        download: null,
        uploaded: true,
        kept: true,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the same version again is 200; nightly=true publishes a nightly; fields in any order', async () => {
    const again = await appArchive({ version: '1.0.0', name: 'News again' });
    const response = await upload('alice', [
      { name: 'signature', value: signWith('news', again) },
      { name: 'archive', value: again, filename: 'news.tar.gz' },
    ]);
    assert.equal(response.statusCode, 200, response.body);
    const nightly = await appArchive({ version: '1.1.0' });
    const published = await upload('alice', [
      { name: 'archive', value: nightly, filename: 'news.tar.gz' },
      { name: 'nightly', value: 'true' },
      { name: 'signature', value: signWith('news', nightly) },
    ]);
    assert.equal(published.statusCode, 201, published.body);
    assert.equal((await fetch(`${origin}/api/v1/archives/news/nightly/1.1.0.tar.gz`)).status, 200);
  });

  test('<donation> links of the latest release show on the app page; a bad one is refused with the element', async () => {
    const bytes = await appArchive({
      version: '1.5.0',
      extra:
        '<donation type="paypal">https://paypal.example/news</donation><donation title="Buy me a coffee">https://coffee.example/news</donation>',
    });
    const published = await upload('alice', [
      { name: 'archive', value: bytes, filename: 'news.tar.gz' },
      { name: 'signature', value: signWith('news', bytes) },
    ]);
    assert.equal(published.statusCode, 201, published.body);
    const page = await server.app.inject({ url: '/apps/news', headers: { accept: 'text/html' } });
    assert.match(page.body, /<a href="https:\/\/paypal\.example\/news" rel="nofollow noopener">Donate \(PayPal\)<\/a>/);
    assert.match(page.body, /<a href="https:\/\/coffee\.example\/news" rel="nofollow noopener">Buy me a coffee<\/a>/);
    const bad = await appArchive({ version: '1.6.0', extra: '<donation type="gold">http://plain.example</donation>' });
    const refused = await upload('alice', [
      { name: 'archive', value: bad, filename: 'news.tar.gz' },
      { name: 'signature', value: signWith('news', bad) },
    ]);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().detail, /<donation>/);
  });

  test('refusals as from a URL, each naming the problem; nothing is saved', async () => {
    const before = await releases();
    const bytes = await appArchive({ version: '2.0.0' });
    const good = signWith('news', bytes);
    refused(
      await upload(null, [{ name: 'archive', value: bytes, filename: 'a.tar.gz' }]),
      401,
      'not_authenticated',
      /./,
    );
    refused(
      await upload('alice', [{ name: 'archive', value: bytes, filename: 'a.tar.gz' }]),
      400,
      'invalid_request',
      /signature: This field is required/,
    );
    refused(
      await upload('alice', [{ name: 'signature', value: good }]),
      400,
      'invalid_request',
      /archive: This field is required/,
    );
    refused(
      await upload('alice', [
        { name: 'file', value: bytes, filename: 'a.tar.gz' },
        { name: 'signature', value: good },
      ]),
      400,
      'invalid_request',
      /file field named "archive".*came as "file"/,
    );
    refused(
      await upload('alice', [
        { name: 'archive', value: bytes, filename: 'a.tar.gz' },
        { name: 'signature', value: signWith('news', Buffer.from('other bytes')) },
      ]),
      400,
      'invalid_signature',
      /does not match this archive/,
    );
    refused(
      await upload('alice', [
        { name: 'archive', value: bytes, filename: 'a.tar.gz' },
        { name: 'signature', value: 'not base64!' },
      ]),
      400,
      'invalid_request',
      /signature/,
    );
    refused(
      await upload('alice', [
        { name: 'archive', value: bytes, filename: 'a.tar.gz' },
        { name: 'nightly', value: 'perhaps' },
        { name: 'signature', value: good },
      ]),
      400,
      'invalid_request',
      /nightly: expected true or false/,
    );
    refused(
      await upload('alice', [
        { name: 'archive', value: Buffer.alloc(1024 * 1024 + 1, 1), filename: 'big.tar.gz' },
        { name: 'signature', value: good },
      ]),
      400,
      'invalid_archive',
      /larger than 1 MiB/,
    );
    refused(
      await upload('alice', [
        { name: 'archive', value: Buffer.from('not a tar.gz'), filename: 'a.tar.gz' },
        { name: 'signature', value: good },
      ]),
      400,
      'invalid_archive',
      /./,
    );
    // bob co-maintains nothing of news: the app's rules, as from a URL.
    refused(
      await upload('bob', [
        { name: 'archive', value: bytes, filename: 'a.tar.gz' },
        { name: 'signature', value: good },
      ]),
      403,
      'forbidden',
      /news/,
    );
    const cut = form([{ name: 'archive', value: bytes, filename: 'a.tar.gz' }]);
    const truncated = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { ...cut.headers, authorization: `Token ${tokens['alice']}` },
      payload: cut.payload.subarray(0, cut.payload.length - 40),
    });
    refused(truncated, 400, 'invalid_request', /could not be read as a form/);
    assert.deepEqual(await releases(), before);
    const stored: string[] = [];
    for await (const archive of server.container.keptArchives.archives.storage.list()) stored.push(archive.sha256);
    assert.deepEqual(
      stored.sort(),
      before.map((r) => r.archive_sha256).sort(),
      'no refused archive is left in storage',
    );
  });
});
