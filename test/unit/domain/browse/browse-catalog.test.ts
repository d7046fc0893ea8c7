import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entrySourceOf, listedApp } from '../../../helpers/listed-app.ts';
import type { ListedApp, ListedRelease } from '../../../../src/domain/listings/app-listing.ts';
import {
  currentCatalog,
  findListedApp,
  homeView,
  latestPerPlatform,
  pageCatalog,
  textsIn,
} from '../../../../src/domain/browse/browse-catalog.ts';
import type { AppDetails } from '../../../../src/domain/browse/browse-catalog.ts';
import { catalogEntry } from '../../../../src/domain/browse/catalog-entry.ts';
import { SearchIndex } from '../../../../src/domain/browse/search-index.ts';

const app = (id: string, created: string, lastModified: string, extra: Partial<ListedApp> = {}): ListedApp =>
  listedApp(id, { created, lastModified, ...extra });

describe('homeView', () => {
  test('featured, newest and recently updated first, categories by size', () => {
    const apps = [
      app('a', '2026-01-01', '2026-05-01', { isFeatured: true }),
      app('b', '2026-03-01', '2026-03-02', { categories: ['tools', 'office'] }),
      app('c', '2026-02-01', '2026-06-01'),
    ];
    const entriesOf = (list: ListedApp[]) => {
      const sources = list.map(entrySourceOf);
      return [sources.map(catalogEntry), new SearchIndex(sources)] as const;
    };
    const view = homeView(...entriesOf(apps));
    assert.deepEqual(
      view.featured.map((a) => a.id),
      ['a'],
    );
    assert.deepEqual(
      view.newest.map((a) => a.id),
      ['b', 'c', 'a'],
    );
    // "Recently updated" leaves out what "New apps" shows: nothing left in a store this small.
    assert.deepEqual(
      view.updated.map((a) => a.id),
      [],
    );
    const many = Array.from({ length: 14 }, (_, i) =>
      app(
        `app${String(i).padStart(2, '0')}`,
        `2026-01-${String(i + 1).padStart(2, '0')}`,
        i === 0 ? '2026-07-01' : `2026-01-${String(i + 1).padStart(2, '0')}`,
      ),
    );
    const bigger = homeView(...entriesOf(many));
    assert.equal(bigger.newest.length, 12);
    assert.deepEqual(
      bigger.updated.map((a) => a.id),
      ['app00', 'app01'],
      'the two apps not among the newest, the updated one first',
    );
    assert.deepEqual(view.categories, [
      { id: 'tools', apps: 3 },
      { id: 'office', apps: 1 },
    ]);
    assert.equal(view.total, 3);
  });
});

describe('textsIn', () => {
  test('the first language the app has, else English', () => {
    const multi = app('a', '', '', {
      translations: {
        en: { name: 'Mail', summary: '', description: '' },
        de: { name: 'E-Mail', summary: '', description: '' },
      },
    });
    assert.equal(textsIn(multi, ['fr', 'de']).name, 'E-Mail');
    assert.equal(textsIn(multi, ['fr']).language, 'en');
  });
});

describe('currentCatalog', () => {
  test('read once per content version and day, shared by page views; read again when either moves', async () => {
    let version = 1;
    let loads = 0;
    let clock = new Date('2026-06-01T10:00:00Z');
    const stamp = () => ({ version, changedAt: clock, instanceId: 'x' });
    const catalog = currentCatalog(
      {
        entries: async () => {
          loads += 1;
          return { stamp: stamp(), body: [entrySourceOf(app(`v${version}`, '', ''))] };
        },
        platforms: async () => ({ stamp: stamp(), body: [] }),
        categories: async () => ({ stamp: stamp(), body: [] }),
        icons: async () => new Map(),
        details: async () => null,
      },
      {
        get current() {
          return stamp();
        },
        ready: async () => stamp(),
        refresh: async () => stamp(),
      },
      () => clock,
    );
    const listedApps = async () => (await catalog()).apps;
    await Promise.all([listedApps(), listedApps(), listedApps()]);
    assert.equal((await listedApps())[0]?.id, 'v1');
    assert.equal(loads, 1);
    version = 2;
    assert.equal((await listedApps())[0]?.id, 'v2');
    assert.equal(loads, 2);
    clock = new Date('2026-06-02T10:00:00Z');
    await listedApps();
    assert.equal(loads, 3, 'a new day moves the recent-rating window');
  });
});

describe('pageCatalog', () => {
  test("an app page's details are read when asked, a few kept; an app not listed is refused without a read", async () => {
    const reads: string[] = [];
    const apps = Array.from({ length: 40 }, (_, i) =>
      app(`app${String(i).padStart(2, '0')}`, '2026-01-01', '2026-01-01', {
        translations: {
          en: { name: `App ${i}`, summary: 's', description: 'd' },
          de: { name: `Anw ${i}`, summary: 's', description: 'd' },
        },
      }),
    );
    const catalog = pageCatalog(
      { stamp: { version: 1, changedAt: new Date(0), instanceId: 'x' }, day: '20260601' },
      apps.map(entrySourceOf),
      { platforms: [], categories: [], icons: new Map() },
      async (appId): Promise<AppDetails | null> => {
        reads.push(appId);
        const found = apps.find((a) => a.id === appId);
        return found === undefined ? null : { app: found, ratings: [], raterNames: new Map() };
      },
    );
    assert.deepEqual(catalog.languages, ['de', 'en']);
    assert.equal((await findListedApp(catalog, 'app01')).app.id, 'app01');
    await findListedApp(catalog, 'app01');
    assert.deepEqual(reads, ['app01'], 'read once, then kept');
    await assert.rejects(findListedApp(catalog, 'nope'), /nope/);
    assert.deepEqual(reads, ['app01'], 'an app not in the index is never read');
    for (const a of apps) await catalog.details([a.id]);
    reads.length = 0;
    await catalog.details(['app00', 'app39']);
    assert.deepEqual(reads, ['app00'], 'the least recently shown left; the last 32 kept');
    assert.equal('releases' in (catalog.apps[0] ?? {}), false, 'entries hold no releases');
    assert.equal(JSON.stringify(catalog.apps).includes('"d"'), false, 'nor descriptions');
  });
});

describe('latestPerPlatform', () => {
  const release = (version: string, spec: string, isNightly = false) =>
    ({ version, isNightly, platformVersionSpec: spec }) as unknown as ListedRelease;
  const platforms = ['31.0.2', '31.0.0', '30.0.14', '30.0.1', '29.0.9'].map((version) => ({
    version,
    hasRelease: true,
    isSupported: true,
  }));

  test('the newest stable, non-nightly release for the newest patch release of each major version', () => {
    const listed = app('news', '', '', {
      releases: [
        release('3.0.0', '>=31.0.0 <32.0.0'),
        release('3.1.0-beta.1', '>=31.0.0 <32.0.0'),
        release('3.2.0', '>=31.0.0 <32.0.0', true),
        release('2.4.0', '>=29.0.0 <31.0.0'),
        release('2.3.0', '>=29.0.0 <31.0.0'),
      ],
    });
    assert.deepEqual(
      latestPerPlatform(listed, platforms).map((row) => [row.platform, row.release.version]),
      [
        ['31', '3.0.0'],
        ['30', '2.4.0'],
        ['29', '2.4.0'],
      ],
    );
  });

  test('majors no release supports are left out; no platforms, no rows', () => {
    const listed = app('old', '', '', { releases: [release('1.0.0', '>=30.0.0 <30.0.5')] });
    assert.deepEqual(latestPerPlatform(listed, platforms), [], '30.0.14 is past the release');
    assert.deepEqual(latestPerPlatform(app('x', '', '', { releases: [release('1.0.0', '*')] }), []), []);
  });
});
