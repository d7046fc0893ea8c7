import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ListedApp, ListedRelease } from '../../../../src/domain/listings/app-listing.ts';
import { PAGE_SIZE, searchApps as search, searchWords } from '../../../../src/domain/browse/search-catalog.ts';
import type { SearchQuery, SearchResult } from '../../../../src/domain/browse/search-catalog.ts';
import { SearchIndex, withinEdits } from '../../../../src/domain/browse/search-index.ts';
import { catalogEntry } from '../../../../src/domain/browse/catalog-entry.ts';
import { entrySourceOf } from '../../../helpers/listed-app.ts';

/** A search over these apps, indexed as a catalogue indexes them. */
function searchApps(apps: readonly ListedApp[], query: SearchQuery): SearchResult {
  const sources = apps.map(entrySourceOf);
  return search({ apps: sources.map(catalogEntry), index: new SearchIndex(sources) }, query);
}

const release = (platformVersionSpec: string) => ({ platformVersionSpec }) as unknown as ListedRelease;
function app(id: string, name: string, summary: string, extra: Partial<ListedApp> = {}): ListedApp {
  return {
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
    translations: { en: { name, summary, description: '' } },
    ratingOverall: 0.5,
    ratingNumOverall: 0,
    ratingRecent: 0.5,
    ratingNumRecent: 0,
    isEnterpriseOnly: false,
    created: '2026-01-01',
    lastModified: '2026-01-01',
    isFeatured: false,
    certificate: '',
    releases: [release('>=30.0.0 <33.0.0')],
    ...extra,
  };
}
const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  text: '',
  category: null,
  nextcloud: null,
  featuredOnly: false,
  deprecated: false,
  sort: 'relevance',
  page: 1,
  ...overrides,
});

const APPS = [
  app('news', 'News', 'An RSS reader', { ratingOverall: 0.9, ratingNumOverall: 10, created: '2026-03-01' }),
  app('mail', 'Mail', 'Read your news letters too', {
    isFeatured: true,
    categories: ['office'],
    releases: [release('>=28.0.0 <30.0.0')],
  }),
  app('newsletter', 'Newsletter', 'Send mail', { created: '2026-02-01', lastModified: '2026-09-01' }),
  app('files_antivirus', 'Antivirus for files', 'Scans files', {
    translations: {
      en: { name: 'Antivirus for files', summary: 'Scans', description: '' },
      de: { name: 'Virenscanner', summary: 'Prüft Dateien', description: '' },
    },
  }),
];

describe('searchApps', () => {
  test('words: lower case, punctuation separates, bounded', () => {
    assert.deepEqual(searchWords('  RSS, News!  '), ['rss', 'news']);
    assert.equal(searchWords('a '.repeat(100)).length, 10);
  });

  test('relevance: the id itself first, then names (starting with the word higher), then summaries; every word must match', () => {
    assert.deepEqual(
      searchApps(APPS, query({ text: 'news' })).apps.map((a) => a.id),
      ['news', 'newsletter', 'mail'],
    );
    assert.deepEqual(
      searchApps(APPS, query({ text: 'files antivirus' })).apps.map((a) => a.id),
      ['files_antivirus'],
    );
    assert.deepEqual(
      searchApps(APPS, query({ text: 'virenscanner' })).apps.map((a) => a.id),
      ['files_antivirus'],
      'names in any language',
    );
    assert.equal(
      new SearchIndex([entrySourceOf(APPS[0] as ListedApp)]).scores(['news', 'nothing'])?.[0],
      0,
      'every word must match',
    );
  });

  test('words in descriptions count, below summaries; accents and case do not matter', () => {
    const apps = [
      app('office_suite', 'Büro', 'Documents', {
        translations: { en: { name: 'Büro', summary: 'Documents', description: 'Edit spreadsheets together' } },
      }),
      app('sheets', 'Sheets', 'Edit spreadsheets'),
    ];
    assert.deepEqual(
      searchApps(apps, query({ text: 'spreadsheets' })).apps.map((a) => a.id),
      ['sheets', 'office_suite'],
      'the summary ranks above the description',
    );
    assert.deepEqual(
      searchApps(apps, query({ text: 'buro' })).apps.map((a) => a.id),
      ['office_suite'],
    );
    assert.deepEqual(
      searchApps(apps, query({ text: 'BÜRO' })).apps.map((a) => a.id),
      ['office_suite'],
    );
    assert.deepEqual(searchWords('Crème Brûlée'), ['creme', 'brulee']);
  });

  test('a misspelt word finds what it nearly matches, ranked below exact matches', () => {
    const apps = [
      app('calendar', 'Calendar', 'Your events'),
      app('contacts', 'Contacts', 'Your address book'),
      app('cal_sync', 'Calender sync', 'Sync'),
    ];
    assert.deepEqual(
      searchApps(apps, query({ text: 'calender' })).apps.map((a) => a.id),
      ['cal_sync', 'calendar'],
    );
    assert.deepEqual(
      searchApps(apps, query({ text: 'contcats' })).apps.map((a) => a.id),
      ['contacts'],
      'two letters swapped',
    );
    assert.deepEqual(
      searchApps(apps, query({ text: 'adress' })).apps.map((a) => a.id),
      ['contacts'],
      'a letter missing',
    );
    assert.deepEqual(
      searchApps(apps, query({ text: 'cat' })).apps.map((a) => a.id),
      [],
      'short words must match as they are',
    );
    assert.equal(withinEdits('kitten', 'sitting', 2), false);
    assert.equal(withinEdits('kitten', 'sitten', 1), true);
  });

  test('filters: category, featured, a Nextcloud version some release supports', () => {
    assert.deepEqual(
      searchApps(APPS, query({ category: 'office' })).apps.map((a) => a.id),
      ['mail'],
    );
    assert.deepEqual(
      searchApps(APPS, query({ featuredOnly: true })).apps.map((a) => a.id),
      ['mail'],
    );
    assert.deepEqual(
      searchApps(APPS, query({ nextcloud: '29', sort: 'name' })).apps.map((a) => a.id),
      ['mail'],
    );
    assert.equal(searchApps(APPS, query({ nextcloud: '31.0.2' })).total, 3);
    assert.equal(searchApps(APPS, query({ nextcloud: 'x' })).total, 4, 'a malformed version filters nothing');
  });

  test('orders: rating, newest, updated, name', () => {
    assert.equal(searchApps(APPS, query({ sort: 'rating' })).apps[0]?.id, 'news');
    assert.equal(searchApps(APPS, query({ sort: 'newest' })).apps[0]?.id, 'news');
    assert.equal(searchApps(APPS, query({ sort: 'updated' })).apps[0]?.id, 'newsletter');
    assert.deepEqual(
      searchApps(APPS, query({ sort: 'name' })).apps.map((a) => a.id),
      ['files_antivirus', 'mail', 'news', 'newsletter'],
    );
  });

  test('pages of 24; a page past the end shows the last one', () => {
    const many = Array.from({ length: 50 }, (_, i) => app(`app_${String(i).padStart(2, '0')}`, `App ${i}`, ''));
    const second = searchApps(many, query({ sort: 'name', page: 2 }));
    assert.deepEqual([second.total, second.page, second.pages, second.apps.length], [50, 2, 3, PAGE_SIZE]);
    assert.equal(searchApps(many, query({ page: 99 })).page, 3);
  });
});
