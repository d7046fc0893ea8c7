import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ListedApp } from '../listings/app-listing.ts';
import { currentListedApps, homeView, textsIn } from './browse-catalog.ts';

const app = (id: string, created: string, lastModified: string, extra: Partial<ListedApp> = {}): ListedApp => ({
  id,
  categories: ['tools'],
  authors: [],
  userDocs: '',
  adminDocs: '',
  developerDocs: '',
  issueTracker: '',
  website: '',
  discussion: '',
  screenshots: [],
  translations: { en: { name: id, summary: `${id} summary`, description: '' } },
  ratingOverall: 0.5,
  ratingNumOverall: 0,
  ratingRecent: 0.5,
  ratingNumRecent: 0,
  isEnterpriseOnly: false,
  created,
  lastModified,
  isFeatured: false,
  certificate: '',
  releases: [],
  ...extra,
});

describe('homeView', () => {
  test('featured, newest and recently updated first, categories by size', () => {
    const apps = [
      app('a', '2026-01-01', '2026-05-01', { isFeatured: true }),
      app('b', '2026-03-01', '2026-03-02', { categories: ['tools', 'office'] }),
      app('c', '2026-02-01', '2026-06-01'),
    ];
    const view = homeView(apps);
    assert.deepEqual(view.featured.map((a) => a.id), ['a']);
    assert.deepEqual(view.newest.map((a) => a.id), ['b', 'c', 'a']);
    assert.deepEqual(view.updated.map((a) => a.id), ['c', 'a', 'b']);
    assert.deepEqual(view.categories, [{ id: 'tools', apps: 3 }, { id: 'office', apps: 1 }]);
    assert.equal(view.total, 3);
  });
});

describe('textsIn', () => {
  test('the first language the app has, else English', () => {
    const multi = app('a', '', '', { translations: { en: { name: 'Mail', summary: '', description: '' }, de: { name: 'E-Mail', summary: '', description: '' } } });
    assert.equal(textsIn(multi, ['fr', 'de']).name, 'E-Mail');
    assert.equal(textsIn(multi, ['fr']).language, 'en');
  });
});

describe('currentListedApps', () => {
  test('read once per content version and day, shared by page views; read again when either moves', async () => {
    let version = 1;
    let loads = 0;
    let clock = new Date('2026-06-01T10:00:00Z');
    const stamp = () => ({ version, changedAt: clock, instanceId: 'x' });
    const listedApps = currentListedApps(
      {
        readVersion: async () => stamp(),
        apps: async () => {
          loads += 1;
          return { stamp: stamp(), body: [app(`v${version}`, '', '')] };
        },
      },
      () => clock,
    );
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
