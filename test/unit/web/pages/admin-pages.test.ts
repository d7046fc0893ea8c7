import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminOverviewPage } from '../../../../src/web/pages/admin-pages.ts';
import type { AdminOverview } from '../../../../src/web/pages/admin-pages.ts';
import type { PageContext } from '../../../../src/web/layout.ts';
import { pageTexts } from '../../../../src/web/page-texts.ts';

const context: PageContext = {
  languages: ['en'],
  t: pageTexts('en'),
  availableLanguages: ['en'],
  path: '/admin',
  account: { username: 'ada', isAdmin: true, formToken: 'token' },
};
const overview = (extra: Partial<AdminOverview>): AdminOverview => ({
  users: 3,
  admins: 1,
  disabledUsers: 0,
  apps: 2,
  categories: 4,
  platforms: 3,
  pendingRequests: 0,
  recent: [],
  ...extra,
});

test('the admin overview names what waits: certificate requests, missing Nextcloud releases and categories', () => {
  const page = String(adminOverviewPage(overview({ pendingRequests: 2, platforms: 0, categories: 0 }), context));
  assert.match(page, /<a href="\/admin\/certificates">2 certificate requests wait for approval<\/a>/);
  assert.match(page, /<a href="\/admin\/platforms">The store lists no Nextcloud releases/);
  assert.match(page, /<a href="\/admin\/categories">The store has no categories/);
  assert.match(page, /<li><a href="\/admin">Admin<\/a><\/li>/, 'the header links an administrator to the admin pages');
  const calm = String(adminOverviewPage(overview({ pendingRequests: null, disabledUsers: 1 }), context));
  assert.match(calm, /Nothing: no certificate request waits/);
  assert.match(calm, /<dd>3 \(1 administrator, 1 disabled\)<\/dd>/);
});
