import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Parser from 'rss-parser';
import { retireRelease } from '../../src/domain/apps/app-status.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING, testAudit } from '../helpers/acting.ts';
import { readCert } from '../helpers/certificate-fixtures.ts';
import { candidate, registerDirectly } from '../helpers/listing-data.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const HOSTILE = '<script>alert(1)</script> **bold** [x](javascript:alert(1)) \u0001\u0008 & done';

/** The release feeds (issue 52), read by a feed parser as a reader would. */
describe(`release feeds, Atom and RSS (${DIALECT})`, () => {
  let server: TestServer;
  const parser = new Parser();

  before(async () => {
    server = await createTestServer({ env: { APPSTORE_PUBLIC_URL: 'https://apps.example.org' } });
    await importCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    const owner = await createUser(server.container, 'owner', null);
    let minute = 0;
    const publish = async (appId: string, version: string, nightly = false, changelog?: string) => {
      minute += 1;
      const made = candidate(appId, version, '>=30.0.0 <33.0.0', `${appId} ${version}`);
      const release = {
        ...made.release,
        isNightly: nightly,
        ...(changelog === undefined ? {} : { translations: { en: { changelog } } }),
      };
      const app =
        appId === 'news'
          ? {
              ...made.app,
              translations: {
                ...made.app.translations,
                de: { name: 'Nachrichten', summary: 's', description: 'd' },
              },
            }
          : made.app;
      const at = new Date(Date.UTC(2026, 10, 1, 10, minute));
      if ((await server.container.registration.registry.findApp(appId)) === null)
        await registerDirectly(server.container, appId, readCert(`${appId}.crt`), owner.id, at);
      await server.container.publishing.releases.saveRelease(
        { ...made, app, release },
        {
          download: `https://example.org/${appId}-${version}.tar.gz`,
          developerDownload: null,
          provenance: null,
          signature: 'c2ln',
          sha256: 'ab'.repeat(32),
          size: 10,
        },
        { confirm: () => undefined, isLatest: () => true },
        at,
        testAudit,
      );
    };
    for (let i = 0; i < 11; i++) await publish('news', `1.${i}.0`);
    await publish('news', '2.0.0-beta.1');
    await publish('news', '2.1.0', true);
    await publish('notes', '1.0.0', false, HOSTILE);
    await publish('notes', '1.1.0');
    await retireRelease(
      { appId: 'notes', version: '1.1.0', nightly: false },
      { reason: 'broken', note: '' },
      TEST_ACTING,
      server.container.appStatus,
    );
  });
  after(() => server.close());

  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ url, headers });

  test('RSS 2.0: the newest ten stable releases, newest first, each linking its app page; retired left out', async () => {
    const response = await get('/en/feeds/releases.rss');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/rss+xml; charset=utf-8');
    const feed = await parser.parseString(response.body);
    assert.equal(feed.title, 'Newest app releases');
    assert.equal(feed.items.length, 10);
    assert.deepEqual(
      feed.items.slice(0, 3).map((i) => i.title),
      ['notes app 1.0.0', 'news app 1.10.0', 'news app 1.9.0'],
    );
    assert.equal(feed.items[0]?.link, 'https://apps.example.org/apps/notes');
    assert.ok(!feed.items.some((i) => /1\.1\.0|beta|nightly/.test(i.title ?? '') && /notes/.test(i.title ?? '')));
    assert.ok(!feed.items.some((i) => /beta|nightly/.test(i.title ?? '')));
  });

  test('Atom: the same entries, parsed as Atom; a hostile changelog is inert', async () => {
    const response = await get('/en/feeds/releases.atom');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/atom+xml; charset=utf-8');
    assert.match(
      response.body,
      /^<\?xml version="1\.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"/,
    );
    const feed = await parser.parseString(response.body);
    assert.equal(feed.items.length, 10);
    const hostile = feed.items.find((i) => i.title === 'notes app 1.0.0');
    const content = hostile?.content ?? '';
    assert.match(content, /<strong>bold<\/strong>/, 'Markdown rendered');
    assert.doesNotMatch(content, /<script/i, 'raw HTML shows as text');
    assert.doesNotMatch(content, /href="javascript/i);
    assert.ok(!response.body.includes('\u0001') && !response.body.includes('\u0008'), 'no character XML forbids');
    assert.equal(hostile?.id, 'https://apps.example.org/apps/notes#release-1.0.0');
    assert.match(response.body, /<author><name>Ann Ø<\/name><\/author>/, 'the developer, not the app');
  });

  test('?app=, ?nightly=true, ?prerelease=true; the name in the feed’s language', async () => {
    const news = await parser.parseString(
      (await get('/de/feeds/releases.rss?app=news&nightly=true&prerelease=true')).body,
    );
    assert.deepEqual(
      news.items.slice(0, 3).map((i) => i.title),
      ['Nachrichten 2.1.0 (nightly)', 'Nachrichten 2.0.0-beta.1', 'Nachrichten 1.10.0'],
    );
    assert.equal(news.title, 'Newest releases of Nachrichten');
    const plain = await parser.parseString((await get('/feeds/releases.atom?app=notes')).body);
    assert.deepEqual(
      plain.items.map((i) => i.title),
      ['notes app 1.0.0'],
    );
  });

  test('ETag and 304; refusals say what was wrong', async () => {
    const first = await get('/en/feeds/releases.atom');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    const again = await get('/en/feeds/releases.atom', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const unknown = await get('/en/feeds/releases.rss?app=nothere');
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.json().detail, /no app 'nothere'/);
    assert.equal((await get('/en/feeds/releases.rss?app=Not-An-Id')).statusCode, 400);
    assert.equal((await get('/<x>/feeds/releases.rss')).statusCode, 400);
  });
});
