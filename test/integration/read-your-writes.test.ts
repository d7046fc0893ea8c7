import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA_FILE, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { runAppstore, runCommand } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import {
  externalAppXml,
  fetchSend,
  publishFixtureRelease,
  registerFixtureApp,
  tokenOf,
} from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const ENV = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' };
const PASSWORD = 'a password for rounds of writes';
const ROUNDS = 6;

interface Listed {
  id: string;
  isFeatured: boolean;
  releases: Array<{ version: string }>;
}

/**
 * Read-your-writes against `bin/appstore.js serve` (the bundle), as Nextcloud servers and
 * operators meet it: a write answered (201, 204) by the store, or an `appstore` command that has
 * exited (here in this process, another process to the store; once as a child process), is in
 * the very next read of every listing it touches and of the pages. Each read sends the ETag the
 * listing had before the write: a store that has not seen the write answers 304, and fails.
 */
describe(`read-your-writes: the next request shows the write, whoever made it (${DIALECT})`, () => {
  let database: TestDatabase;
  let setup: TestServer;
  let files: ArchiveServer;
  let serve: ServeProcess;
  let send: Send;
  let token = '';
  let raterToken = '';
  const etags = new Map<string, string>();
  let dir = '';

  before(async () => {
    files = await startArchiveServer();
    database = await createTestDatabase();
    setup = await createTestServer({ database, env: ENV });
    await importCategories(
      [{ id: 'multimedia', translations: { en: { name: 'Multimedia', description: '' } } }],
      TEST_ACTING,
      setup.container.catalog,
    );
    await importPlatformReleases(
      [{ version: '31.0.0', hasRelease: true, isSupported: true }],
      TEST_ACTING,
      setup.container.catalog,
    );
    await createUser(setup.container, 'rita', PASSWORD);
    await createUser(setup.container, 'ray', PASSWORD);
    serve = await startServeProcess({ ...database.env, ...ENV, NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE });
    send = fetchSend(serve.url);
    token = await tokenOf(send, 'rita', PASSWORD);
    raterToken = await tokenOf(send, 'ray', PASSWORD);
    await registerFixtureApp(send, token, 'news');
    await registerFixtureApp(send, token, 'notes');
    dir = fs.mkdtempSync(path.join(database.dataDir, 'rounds-'));
    // Every listing and page once, so that each has an ETag (and a cached body) to go stale.
    for (const url of LISTINGS) await read(url);
  });
  after(async () => {
    assert.equal(await serve?.stop(), 0, serve?.output());
    await setup?.close();
    await files?.close();
  });

  const LISTINGS = [
    '/api/v1/apps.json',
    '/api/v1/platform/31.0.0/apps.json',
    '/api/v1/appapi_apps.json',
    '/api/v1/categories.json',
    '/api/v1/platforms.json',
    '/api/v1/ratings.json',
    '/api/v1/discover.json',
  ];

  /** The ETags the addresses have now, just before a write (a store that missed the write would answer them 304). */
  async function prime(...urls: string[]): Promise<void> {
    for (const url of urls) {
      const answer = await send('GET', url);
      assert.equal(answer.status, 200);
      if (answer.headers.etag !== undefined) etags.set(url, answer.headers.etag);
    }
  }

  /** GET with the ETag the address had: a 304 here means the store answered from before the write. */
  async function read<T>(url: string): Promise<T> {
    const known = etags.get(url);
    const answer = await send('GET', url, { headers: known === undefined ? {} : { 'if-none-match': known } });
    assert.equal(answer.status, 200, `${url}: ${answer.status} to the ETag from before the write (${known ?? 'none'})`);
    if (answer.headers.etag !== undefined) etags.set(url, answer.headers.etag);
    return (url.startsWith('/api/') ? answer.json() : answer.text) as T;
  }

  const cli = async (args: string[]): Promise<void> => {
    const result = await runCommand(args, { ...database.env, ...ENV });
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  };
  const file = (name: string, content: unknown): string => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, JSON.stringify(content));
    return at;
  };

  test("an operator command's write is in the very next request, the 304 path included (10 times in a row)", async () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      await cli([
        'category',
        'import',
        file(`quick-${attempt}.json`, [
          { id: 'multimedia', translations: { en: { name: `Quick ${attempt}`, description: '' } } },
        ]),
      ]);
      const names = (await read<Array<{ translations: { en: { name: string } } }>>('/api/v1/categories.json')).map(
        (c) => c.translations.en.name,
      );
      assert.deepEqual(names, [`Quick ${attempt}`], `attempt ${attempt}`);
    }
  });

  test(`${ROUNDS} rounds of CLI and API writes, each read at once: apps, platform, appapi, categories, platforms, ratings, discover, pages`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      // The operator's commands: categories, platforms, discover, an app flag.
      await prime('/api/v1/categories.json');
      const categories = file(`categories-${round}.json`, [
        { id: 'multimedia', translations: { en: { name: `Multimedia ${round}`, description: '' } } },
      ]);
      if (round === 1) {
        // Once as a child process through the bundle: read after the command's exit.
        const child = await runAppstore(['category', 'import', categories], { ...database.env, ...ENV });
        assert.equal(child.code, 0, child.stderr);
      } else await cli(['category', 'import', categories]);
      const names = (await read<Array<{ translations: { en: { name: string } } }>>('/api/v1/categories.json')).map(
        (c) => c.translations.en.name,
      );
      assert.deepEqual(names, [`Multimedia ${round}`], `round ${round}: categories.json`);

      await prime('/api/v1/platforms.json');
      await cli([
        'platform',
        'import',
        file(`platforms-${round}.json`, [{ version: `40.0.${round}`, hasRelease: false, isSupported: true }]),
      ]);
      assert.ok(
        (await read<Array<{ version: string }>>('/api/v1/platforms.json')).some((p) => p.version === `40.0.${round}`),
        `round ${round}: platforms.json`,
      );

      await prime('/api/v1/discover.json');
      await cli([
        'discover',
        'import',
        file(`discover-${round}.json`, [{ type: 'post', id: `post-${round}`, headline: { en: `Round ${round}` } }]),
      ]);
      assert.deepEqual(
        (await read<Array<{ id: string }>>('/api/v1/discover.json')).map((e) => e.id),
        [`post-${round}`],
        `round ${round}: discover.json`,
      );

      // The developer's API writes: a release, an ExApp release, a rating.
      const version = `1.${round}.0`;
      await prime('/api/v1/apps.json', '/api/v1/platform/31.0.0/apps.json');
      const published = await publishFixtureRelease(send, token, files, {
        id: 'news',
        version,
        nextcloud: ['30', '31'],
      });
      assert.equal(published.status, 201, published.text);
      const news = (await read<Listed[]>('/api/v1/apps.json')).find((app) => app.id === 'news');
      assert.equal(
        news?.releases.some((r) => r.version === version),
        true,
        `round ${round}: apps.json has ${version}`,
      );
      assert.equal(
        (await read<Listed[]>('/api/v1/platform/31.0.0/apps.json'))[0]?.releases.some((r) => r.version === version),
        true,
        `round ${round}: platform listing`,
      );
      assert.match(
        await read<string>('/apps/news'),
        new RegExp(`>${version.replaceAll('.', '\\.')}<`),
        `round ${round}: the app page`,
      );

      await prime('/api/v1/appapi_apps.json');
      const exApp = await publishFixtureRelease(send, token, files, {
        id: 'notes',
        version,
        extra: externalAppXml(version, false),
      });
      assert.equal(exApp.status, 201, exApp.text);
      const notes = (await read<Listed[]>('/api/v1/appapi_apps.json')).find((app) => app.id === 'notes');
      assert.equal(
        notes?.releases.some((r) => r.version === version),
        true,
        `round ${round}: appapi_apps.json has ${version}`,
      );

      await prime('/api/v1/ratings.json');
      const rated = await send('POST', '/api/v1/apps/news/ratings', {
        headers: { authorization: `Token ${raterToken}` },
        payload: { rating: round % 2, comment: `round ${round}` },
      });
      assert.ok(rated.status === 201 || rated.status === 200, rated.text);
      const ratings = await read<Array<{ translations: { en?: { comment: string } } }>>('/api/v1/ratings.json');
      assert.deepEqual(
        ratings.map((r) => r.translations.en?.comment),
        [`round ${round}`],
        `round ${round}: ratings.json`,
      );

      // Last, the operator's flag (apps.json again, and the featured search page).
      const featured = round % 2 === 1;
      await prime('/api/v1/apps.json');
      await cli(['app', 'set', 'news', featured ? '--featured' : '--no-featured']);
      assert.equal(
        (await read<Listed[]>('/api/v1/apps.json')).find((app) => app.id === 'news')?.isFeatured,
        featured,
        `round ${round}: apps.json isFeatured`,
      );
      assert.equal(
        (await send('GET', '/search?featured=1', { headers: { accept: 'text/html' } })).text.includes(
          'href="/apps/news"',
        ),
        featured,
        `round ${round}: the featured search page`,
      );
    }
  });
});
