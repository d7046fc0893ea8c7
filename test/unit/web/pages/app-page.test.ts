import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appPage } from '../../../../src/web/pages/app-page.ts';
import type { AppPageView } from '../../../../src/web/pages/app-page.ts';
import type { PageContext } from '../../../../src/web/layout.ts';
import { pageTexts } from '../../../../src/web/page-texts.ts';
import type { CatalogDisplay } from '../../../../src/web/pages/app-card.ts';
import { listedApp, listedRelease } from '../../../helpers/listed-app.ts';

const context: PageContext = {
  languages: ['en'],
  t: pageTexts('en'),
  availableLanguages: ['en', 'de'],
  path: '/apps/news',
  account: null,
};
const display: CatalogDisplay = {
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
const view = (extra: Partial<AppPageView>): AppPageView => ({
  latest: [],
  platforms: 0,
  ratings: [],
  rater: null,
  form: {},
  raterNames: new Map(),
  downloads: null,
  ...extra,
});
const release = (version: string, raw: string) => ({ ...listedRelease(version, '*'), rawPlatformVersionSpec: raw });
const news = listedApp('news', { releases: [release('2.0.0', '>=30 <=32'), release('1.0.0', '>=29')] });

test('the app page writes Nextcloud versions one way: install help and every release', () => {
  const page = String(appPage(news, view({}), context, display));
  assert.match(page, /<dd>29 and later<\/dd>/, 'the install help: 1.0.0 sets no maximum');
  assert.match(page, /<dd>30 to 32<\/dd>/, "2.0.0's own range");
  assert.doesNotMatch(page, /&gt;=|&lt;=/);
  assert.match(page, /<dt>PHP<\/dt><dd>any<\/dd>/, 'PHP "*" is any version');
});

test('without Nextcloud releases listed, the app page says why there is no direct download', () => {
  const none = String(appPage(news, view({ platforms: 0 }), context, display));
  assert.match(none, /This store lists no Nextcloud releases yet, so it offers no direct download per version/);
  const unmatched = String(appPage(news, view({ platforms: 3 }), context, display));
  assert.match(unmatched, /No stable release of this app supports the Nextcloud releases this store lists/);
  const offered = String(
    appPage(news, view({ platforms: 3, latest: [{ platform: '32', release: news.releases[0]! }] }), context, display),
  );
  assert.match(offered, /Nextcloud 32: 2\.0\.0/);
  assert.doesNotMatch(offered, /no direct download|No stable release/);
});

test('comments only in other languages are shown, said to be in others, rather than "no comments"', () => {
  const rating = {
    rating: 1,
    ratedAt: '2026-05-01T00:00:00.000000Z',
    translations: { pt_BR: { comment: 'Muito bom' } },
    user: { id: 7, firstName: '', lastName: '' },
    app: 'news',
    id: 3,
    appVersion: '1.2.0',
    reply: 'Obrigado!',
    hidden: false,
  };
  const page = String(appPage(news, view({ ratings: [rating], raterNames: new Map([[7, 'rui']]) }), context, display));
  assert.match(page, /No comments in your language yet; these are in others\./);
  assert.match(
    page,
    /<li class="comment" id="rating-3">[\s\S]*<div class="markdown" lang="pt-BR" dir="ltr">[\s\S]*Muito bom/,
  );
  assert.match(page, /on \u20661\.2\.0\u2069/, 'the version the rating was given for');
  assert.match(page, /Reply from the developer[\s\S]*Obrigado!/);
  assert.doesNotMatch(page, /ratings\/3\/report/, 'an anonymous visitor has no report form');
  assert.match(page, /role="img" aria-label="5 out of 5 stars"/, "the comment's stars, drawn");
  const none = String(appPage(news, view({}), context, display));
  assert.match(none, /No comments yet\./);
});
