import assert from 'node:assert/strict';
import { test } from 'node:test';
import { homePage } from '../../../../src/web/pages/home-page.ts';
import type { PageContext } from '../../../../src/web/layout.ts';
import { pageTexts } from '../../../../src/web/page-texts.ts';

const context: PageContext = {
  languages: ['en'],
  t: pageTexts('en'),
  availableLanguages: ['en'],
  path: '/',
  account: null,
};
const display = {
  cards: {
    languages: ['en'],
    dateLanguage: 'en',
    strings: pageTexts('en').site,
    shots: () => null,
    icons: new Map(),
    now: new Date('2026-06-01T00:00:00Z'),
  },
  categoryName: (id: string) => id,
  categoryDescription: () => '',
};

test('an empty store says it is new and shows a developer where to start', () => {
  const page = String(homePage({ featured: [], newest: [], updated: [], categories: [], total: 0 }, context, display));
  assert.match(page, /This store is new\./);
  assert.doesNotMatch(page, /0 apps in this store/);
  assert.match(page, /Are you a developer\? Publish the first one: <a href="\/developer">/);
});
