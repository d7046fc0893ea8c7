import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { importDiscover } from '../../src/domain/discover/manage-discover.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { readCert, REALDATA_SKIP } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { FULL_DOCUMENT } from '../helpers/discover-data.ts';
import { discoverSchemaValidator } from '../helpers/discover-schema.ts';
import { registerDirectly } from '../helpers/listing-data.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { contentVersion } from '../helpers/listing-bytes.ts';
import type { TestServer } from '../helpers/test-server.ts';

const URL = '/api/v1/discover.json';

describe(`discover.json (${DIALECT})`, () => {
  const clock = new TestClock('2026-11-23T10:00:00.000Z');
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await createTestServer({ now: clock.now });
    env = server.database.env;
    const owner = await createUser(server.container, 'dora', null);
    for (const appId of ['news', 'mail'])
      await registerDirectly(server.container, appId, readCert('news.crt'), owner.id, clock.now());
  });
  after(() => server.close());

  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    server.app.inject({ method, url: URL, headers });
  const file = (name: string, data: unknown): string => {
    const where = path.join(server.database.dataDir, name);
    fs.writeFileSync(where, typeof data === 'string' ? data : JSON.stringify(data));
    return where;
  };

  test('before any import: [] with an ETag, served like every listing', async () => {
    const response = await get();
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, '[]');
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.match(
      String(response.headers.etag),
      /^"[A-Za-z0-9._-]+"$/,
      'no path characters: servers use it as a folder name',
    );
    assert.equal(response.headers['access-control-allow-origin'], '*');
  });

  test("an import is served as one JSON list, valid under the original store's schema; ETag, 304, gzip, br, HEAD", async () => {
    const empty = (await get()).headers.etag;
    const imported = await importDiscover(FULL_DOCUMENT, TEST_ACTING, server.container.discover);
    assert.deepEqual(imported, { entries: 4, changed: true });
    const response = await get();
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), FULL_DOCUMENT);
    const etag = String(response.headers.etag);
    assert.notEqual(etag, empty);

    assert.equal((await get({ 'if-none-match': etag })).statusCode, 304);
    const gzip = await get({ 'accept-encoding': 'gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gzip.rawPayload).toString('utf8')), FULL_DOCUMENT);
    const br = await get({ 'accept-encoding': 'br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString('utf8')), FULL_DOCUMENT);
    const head = await get({}, 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, etag);

    const again = await importDiscover(FULL_DOCUMENT, TEST_ACTING, server.container.discover);
    assert.deepEqual(again, { entries: 4, changed: false });
    assert.equal((await get()).headers.etag, etag, 'the same file again changes nothing, not even the ETag');
  });

  test(
    "the served document validates against the original store's schema (app-discover.schema.json)",
    { skip: REALDATA_SKIP },
    async () => {
      const validate = discoverSchemaValidator();
      assert.ok(validate !== null);
      const served = (await get()).json() as unknown[];
      assert.equal(served.length, 4);
      assert.deepEqual(validate(served), []);
    },
  );

  test('an entry past its expiryDate leaves the body from the next day on, and the ETag moves then (at most daily)', async () => {
    const before = await get();
    clock.advance(2 * 3600_000);
    assert.equal((await get()).headers.etag, before.headers.etag, 'within the day: the same');
    clock.advance(40 * 86_400_000); // 2027-01-02: welcome-2026 expired on 2026-12-31
    const after = await get();
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.deepEqual(
      (after.json() as Array<{ id: string }>).map((entry) => entry.id),
      ['video', 'mail-apps', 'tips'],
    );
    assert.equal(
      (await get({ 'if-none-match': String(before.headers.etag) })).statusCode,
      200,
      "yesterday's ETag no longer matches",
    );
  });

  test('appstore discover import and export: a file round-trips; every class of mistake is refused whole and changes nothing', async () => {
    const exported = await runCommand(['discover', 'export'], env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(JSON.parse(exported.stdout), FULL_DOCUMENT, 'expired entries are exported too');
    const same = await runCommand(['discover', 'import', file('same.json', exported.stdout)], env);
    assert.equal(same.stdout.trim(), '4 discover entries, already these: nothing changed');

    const etag = await contentVersion(server);
    const refusals: Array<[unknown, RegExp]> = [
      [{ not: 'a list' }, /\(file\): must be a JSON array of entries/],
      [[{ type: 'post', headline: { en: 'no id' } }], /\[0\]\.id: is required/],
      [
        [{ type: 'post', id: 'a', media: { content: { src: 'http://example.org/a.png', alt: 'a' } } }],
        /\[0\]\.media\.content\.src: must be an https:\/\/ address, not http/,
      ],
      [
        [
          {
            type: 'showcase',
            id: 'b',
            content: [
              { type: 'app', appId: 'news' },
              { type: 'app', appId: 'nosuchapp' },
            ],
          },
        ],
        /\[0\]\.content\[1\]\.appId: there is no app 'nosuchapp' in this store/,
      ],
      [
        [{ type: 'carousel', id: 'c', content: [{ type: 'post' }] }],
        /\[0\]\.content: must be a list of at least 2 items/,
      ],
      [[{ type: 'post', id: 'd', expiryDate: '31.12.2026' }], /\[0\]\.expiryDate: must be a date and time/],
      [
        [
          { type: 'post', id: 'e' },
          { type: 'post', id: 'e' },
        ],
        /\[1\]\.id: duplicate of entry \[0\]/,
      ],
    ];
    for (const [data, message] of refusals) {
      const refused = await runCommand(['discover', 'import', file('bad.json', data)], env);
      assert.equal(refused.code, 1, JSON.stringify(data));
      assert.match(refused.stderr, message);
      assert.match(refused.stderr, /^appstore: the discover file was not imported/);
    }
    const notJson = await runCommand(['discover', 'import', file('broken.json', '[{"type": ')], env);
    assert.equal(notJson.code, 1);
    assert.equal(await contentVersion(server), etag, 'nothing was written');
    assert.deepEqual(JSON.parse((await runCommand(['discover', 'export'], env)).stdout), FULL_DOCUMENT);

    const [entry] = await server.container.audit.find({ limit: 1 });
    assert.equal(entry?.event, 'discover.imported');
    assert.deepEqual(entry?.details.ids, ['welcome-2026', 'video', 'mail-apps', 'tips']);
  });
});
