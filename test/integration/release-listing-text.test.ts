import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toFragment } from '../../src/domain/listings/app-listing.ts';
import type { AppFragment } from '../../src/domain/listings/app-listing.ts';
import { recentWindowStart } from '../../src/domain/listings/rating-aggregate.ts';
import type { ReleaseCandidate } from '../../src/domain/releases/release-data.ts';
import { RELEASE_TEXT_FORMAT } from '../../src/storage/repositories/listed-release.repository.ts';
import {
  loadAppsWithVersions,
  loadListedApps,
  loadListingApps,
} from '../../src/storage/repositories/listing.repository.ts';
import { testAudit } from '../helpers/acting.ts';
import { createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { candidate, registerDirectly } from '../helpers/listing-data.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/** Text that JSON must escape, and text it must not. */
const HOSTILE = 'quote " backslash \\ tab \t line\ncontrol \u0001 sep \u2028 lone \ud800 pair 😀 é';

describe(`each release's listing text, written with it (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock('2026-06-01T12:00:00.000Z');
  const apps = ['text_a', 'text_b', 'text_c'];

  before(async () => {
    server = await createTestServer({ now: clock.now });
    await server.container.catalog.store.upsertCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      clock.now(),
      testAudit,
    );
    const owner = (await createUser(server.container, 'texts', null)).id;
    for (const [index, appId] of apps.entries()) {
      await registerDirectly(
        server.container,
        appId,
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
        owner,
        clock.now(),
      );
      // One ExApp release, listed in appapi_apps.json only.
      for (const version of ['1.0.0', '1.1.0', '2.0.0-beta.1'])
        await publish(appId, version, index === 2 && version === '1.1.0');
    }
  });
  after(() => server.close());

  /** Saves a release as a publish does (through the store's own write). */
  async function publish(appId: string, version: string, exApp: boolean): Promise<void> {
    const made = candidate(
      appId,
      version,
      appId === 'text_b' ? '>=30.0.0' : '>=28.0.0 <31.0.0',
      `${HOSTILE} ${version}`,
    );
    const release: ReleaseCandidate['release'] = {
      ...made.release,
      // Two of each, not in alphabetical order: each list keeps the order the info.xml gave.
      phpExtensions: [
        { id: 'zip', versionSpec: '*', rawVersionSpec: '*' },
        { id: 'intl', versionSpec: '>=1.0.0', rawVersionSpec: '>=1.0' },
      ],
      databases: [
        { id: 'sqlite', versionSpec: '*', rawVersionSpec: '*' },
        { id: 'pgsql', versionSpec: '>=12.0.0', rawVersionSpec: '>=12' },
      ],
      shellCommands: ['ffmpeg', 'convert'],
      licenses: ['mit', 'agpl'],
      translations: { en: { changelog: `- ${HOSTILE}` }, de: { changelog: '- Änderung' }, ar: { changelog: '' } },
      externalApp: exApp
        ? {
            isSystem: true,
            dockerInstall: { registry: 'ghcr.io', image: 'example/app', imageTag: version },
            scopes: ['FILES'],
            environmentVariables: [{ name: 'A', displayName: HOSTILE, description: 'd', default: null }],
          }
        : null,
    };
    await server.container.publishing.releases.saveRelease(
      { ...made, release },
      {
        download: `https://example.org/${appId}-${version}.tar.gz?x="y"`,
        developerDownload: null,
        provenance: null,
        signature: Buffer.from(`${appId}${version}${clock.now().toISOString()}`).toString('base64'),
        sha256: 'ab'.repeat(32),
        size: 10,
      },
      { confirm: () => undefined, isLatest: () => true },
      clock.now(),
      testAudit,
    );
  }

  const since = (): string => recentWindowStart(clock.now()).since;
  const db = () => server.container.database.db;

  test('a publish writes each release its text in the current format: the release as the listings show it, read from its rows', async () => {
    const rows = await db()
      .selectFrom('releases')
      .select(['app_id', 'version', 'updated_at', 'listing_text', 'listing_text_format', 'listing_text_updated_at'])
      .execute();
    assert.equal(rows.length, 9);
    const listed = new Map(
      (await loadListedApps(db(), since())).flatMap((app) =>
        app.releases.map((release) => [`${app.id} ${release.version}`, release] as const),
      ),
    );
    for (const row of rows) {
      assert.equal(row.listing_text_format, RELEASE_TEXT_FORMAT);
      assert.equal(row.listing_text_updated_at, row.updated_at);
      assert.equal(
        row.listing_text?.toString(),
        JSON.stringify(listed.get(`${row.app_id} ${row.version}`)),
        `${row.app_id} ${row.version}`,
      );
    }
    const exApp = rows.find((row) => row.app_id === 'text_c' && row.version === '1.1.0');
    assert.match(exApp?.listing_text?.toString() ?? '', /"aaIsSystem":true/);
  });

  /**
   * Every app's fragment as the engine makes it from what loadListingApps reads, beside the one
   * made from the rows alone; each release's JSON as the UTF-8 bytes that go into the listing.
   */
  async function fragments(): Promise<{ fromTexts: unknown[]; fromRows: unknown[] }> {
    const asBytes = (fragment: AppFragment) => ({
      ...fragment,
      releases: fragment.releases.map((release) => ({ ...release, json: Buffer.from(release.json) })),
    });
    const fromTexts = (await loadListingApps(db(), since(), apps)).map(({ app }) => asBytes(toFragment(app)));
    const fromRows = (await loadAppsWithVersions(db(), since(), apps)).map(({ app }) => asBytes(toFragment(app)));
    return { fromTexts, fromRows };
  }

  test('the engine takes the written texts, and what it makes of them is what the rows make, byte for byte', async () => {
    const listing = await loadListingApps(db(), since(), apps);
    assert.ok(
      listing.every(({ app }) => app.releases.every((release) => 'writtenText' in release)),
      'every release came as its text',
    );
    const exApps = listing.flatMap(({ app }) =>
      app.releases
        .filter((release) => 'writtenText' in release && release.exApp)
        .map((release) => `${app.id} ${release.version}`),
    );
    assert.deepEqual(exApps, ['text_c 1.1.0']);
    const { fromTexts, fromRows } = await fragments();
    assert.deepEqual(fromTexts, fromRows);
  });

  test('publishing a version again rewrites its text: an ExApp release becomes an ordinary one, and the other way round', async () => {
    clock.advance(60_000);
    await publish('text_c', '1.1.0', false);
    await publish('text_c', '1.0.0', true);
    const listing = await loadListingApps(db(), since(), apps);
    const exApps = listing.flatMap(({ app }) =>
      app.releases
        .filter((release) => 'writtenText' in release && release.exApp)
        .map((release) => `${app.id} ${release.version}`),
    );
    assert.deepEqual(exApps, ['text_c 1.0.0']);
    const { fromTexts, fromRows } = await fragments();
    assert.deepEqual(fromTexts, fromRows);
  });

  test('a write that does not know of the texts (an earlier version of the store, during a rolling upgrade) leaves a text that is not taken', async () => {
    clock.advance(60_000);
    // What an earlier version's publish does to the row: its fields and updated_at, not the text.
    await db()
      .updateTable('releases')
      .set({ download: 'https://other.example.org/text_b.tar.gz', updated_at: clock.now().toISOString() })
      .where('app_id', '=', 'text_b')
      .where('version', '=', '2.0.0-beta.1')
      .execute();
    const [textB] = await loadListingApps(db(), since(), ['text_b']);
    const changed = textB?.app.releases.find((release) => release.version === '2.0.0-beta.1');
    assert.ok(changed !== undefined && !('writtenText' in changed), 'the release is read from its rows');
    assert.equal('download' in changed ? changed.download : '', 'https://other.example.org/text_b.tar.gz');
    const { fromTexts, fromRows } = await fragments();
    assert.deepEqual(fromTexts, fromRows);
  });

  test('a text in another format, or none (a release saved before the column), is not taken: that release is read from its rows', async () => {
    await db()
      .updateTable('releases')
      .set({ listing_text_format: 'release text 0:old' })
      .where('app_id', '=', 'text_a')
      .execute();
    await db()
      .updateTable('releases')
      .set({ listing_text: null, listing_text_format: '' })
      .where('app_id', '=', 'text_b')
      .where('version', '=', '1.1.0')
      .execute();
    // A text that would show if it were taken.
    await db()
      .updateTable('releases')
      .set({ listing_text: Buffer.from('{"stale":true}') })
      .where('app_id', '=', 'text_a')
      .execute();
    const listing = await loadListingApps(db(), since(), apps);
    // Rows come in no particular order: by version.
    const kinds = listing.map(({ app }) => [
      app.id,
      Object.fromEntries(app.releases.map((release) => [release.version, 'writtenText' in release ? 'text' : 'rows'])),
    ]);
    assert.deepEqual(kinds, [
      ['text_a', { '1.0.0': 'rows', '1.1.0': 'rows', '2.0.0-beta.1': 'rows' }],
      // 2.0.0-beta.1: rewritten by a write that did not know of texts (above).
      ['text_b', { '1.0.0': 'text', '1.1.0': 'rows', '2.0.0-beta.1': 'rows' }],
      ['text_c', { '1.0.0': 'text', '1.1.0': 'text', '2.0.0-beta.1': 'text' }],
    ]);
    const { fromTexts, fromRows } = await fragments();
    assert.deepEqual(fromTexts, fromRows);
  });

  test('with no text in the current format at all (a database from before the texts), every release is read from its rows, as before', async () => {
    await db().updateTable('releases').set({ listing_text_format: 'release text 0:old' }).execute();
    const listing = await loadListingApps(db(), since(), apps);
    assert.ok(
      listing.every(
        ({ app }) => app.releases.length === 3 && app.releases.every((release) => !('writtenText' in release)),
      ),
    );
    const { fromTexts, fromRows } = await fragments();
    assert.deepEqual(fromTexts, fromRows);
  });
});
