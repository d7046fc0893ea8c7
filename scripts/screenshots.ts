/**
 * Screenshots of the website's main pages, desktop and phone width, into docs/screenshots/:
 * `node --import tsx scripts/screenshots.ts`. Runs a store on a temporary SQLite database with
 * a small catalogue of its own (the test fixtures' certificates), then Debian's Chromium.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { getOrCreateToken } from '../src/domain/accounts/api-tokens.ts';
import { importCategories, importPlatformReleases } from '../src/domain/catalog/import-catalog.ts';
import { basic, createUser } from '../test/helpers/accounts.ts';
import { appArchive, buildArchive, manifestXml, signWith } from '../test/helpers/app-archive.ts';
import { fillSignIn, launchBrowser } from '../test/helpers/browser.ts';
import { certFile, readCert } from '../test/helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../test/helpers/https-archive-server.ts';
import { createTestServer } from '../test/helpers/test-server.ts';
import { downloadStatsRepository } from '../src/storage/repositories/download-stats.repository.ts';
import { TEST_ACTING } from '../test/helpers/acting.ts';
import { startUpstreamStore } from '../test/helpers/mirror-upstream.ts';
import { syncMirror } from '../src/domain/mirror/sync-mirror.ts';
import sharp from 'sharp';
import { replyToComment, reportComment } from '../src/domain/ratings/moderation.ts';

const PASSWORD = 'violet tractor nebula quilt';
const OUT = path.join(import.meta.dirname, '..', 'docs', 'screenshots');
const DESCRIPTIONS: Record<string, string> = {};
DESCRIPTIONS['news'] = `A fast feed reader for your Nextcloud.

## Features
- Subscribe to RSS and Atom feeds
- Read on the web, on **Android** and on **iOS**
- Folders, starred items and full-text search

See the [documentation](https://example.org/docs) for more.`;
DESCRIPTIONS['notes'] = `Distraction-free notes, kept as Markdown files in your Nextcloud.

## Features
- Write in **Markdown**, with a preview
- Categories from folders, favourites and search
- Apps for Android and iOS keep the same notes

See the [documentation](https://example.org/docs) for more.`;

const NEWS_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="5" y="6" width="22" height="20" rx="2" fill="none" stroke="#fff" stroke-width="2"/><path d="M9 11h14M9 15h14M9 19h9" stroke="#fff" stroke-width="2"/></svg>';

const files = await startArchiveServer();
// Two external logins, for their buttons (no sign-in goes to them: the addresses are examples).
const secretFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'screenshots-')), 'client.secret');
fs.writeFileSync(secretFile, 'an-example-client-secret');
const externalLogin = {
  APPSTORE_OIDC_PROVIDERS: 'example',
  APPSTORE_OIDC_EXAMPLE_ISSUER: 'https://id.example.com/realms/main',
  APPSTORE_OIDC_EXAMPLE_CLIENT_ID: 'appstore',
  APPSTORE_OIDC_EXAMPLE_CLIENT_SECRET_FILE: secretFile,
  APPSTORE_OIDC_EXAMPLE_NAME: 'Example ID',
  APPSTORE_GITHUB_CLIENT_ID: 'Ov23-example',
  APPSTORE_GITHUB_CLIENT_SECRET_FILE: secretFile,
};
const server = await createTestServer({
  env: {
    APPSTORE_CA_CERT: certFile('chain.pem'),
    APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    APPSTORE_SCREENSHOTS_ALLOW_PRIVATE: '1',
    ...externalLogin,
  },
  downloadCa: [TEST_TLS_CA],
});
try {
  const names: Record<string, [string, string]> = {
    multimedia: ['Multimedia', 'Multimedia'],
    tools: ['Tools', 'Werkzeuge'],
    office: ['Office & text', 'Büro & Text'],
  };
  await importCategories(
    Object.entries(names).map(([id, [en, de]]) => ({
      id,
      translations: { en: { name: en, description: '' }, de: { name: de, description: '' } },
    })),
    TEST_ACTING,
    server.container.catalog,
  );
  const token = await getOrCreateToken(
    await createUser(server.container, 'alice', PASSWORD),
    TEST_ACTING,
    server.container.accounts,
  );
  await createUser(server.container, 'ada', PASSWORD, { isAdmin: true });
  const auth = { authorization: `Token ${token}` };
  // Two screenshots of News, drawn here and served by the local HTTPS server: the store copies
  // them and shows its own copies and thumbnails (issue 54).
  const shotUrls: string[] = [];
  for (const [n, accent] of [
    [1, '#0082c9'],
    [2, '#2d7a3e'],
  ] as const) {
    const rows = Array.from(
      { length: 6 },
      (_, i) =>
        `<rect x="300" y="${120 + i * 100}" width="900" height="70" rx="8" fill="#f3f5f7"/><rect x="320" y="${140 + i * 100}" width="${420 + ((i * 97) % 300)}" height="14" rx="7" fill="#9aa4ad"/><rect x="320" y="${165 + i * 100}" width="260" height="10" rx="5" fill="#c5ccd3"/>`,
    ).join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="800"><rect width="1280" height="800" fill="#fff"/><rect width="1280" height="64" fill="${accent}"/><rect width="260" height="736" y="64" fill="#eef1f4"/>${rows}</svg>`;
    files.serve(`/shots/news-${n}.png`, await sharp(Buffer.from(svg)).png().toBuffer());
    shotUrls.push(`${files.origin}/shots/news-${n}.png`);
  }
  for (const [id, name, category] of [
    ['news', 'News', 'multimedia'],
    ['notes', 'Notes', 'office'],
  ] as const) {
    await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: auth,
      payload: { certificate: readCert(`${id}.crt`), signature: readCert(`${id}.sig`) },
    });
    for (const version of ['1.0.0', '1.1.0', '2.0.0-beta.1']) {
      const manifest = {
        id,
        name,
        summary: id === 'notes' ? 'Distraction-free notes in Markdown' : 'A feed reader',
        category,
        version,
        description: DESCRIPTIONS[id] ?? '',
        website: 'https://example.org',
        ...(id === 'news' ? { screenshots: shotUrls } : {}),
      };
      // News ships an icon (drawn light, as Nextcloud's are); Notes has none: the placeholder shows.
      const bytes =
        id === 'news'
          ? await buildArchive({
              'news/appinfo/info.xml': manifestXml(manifest),
              'news/CHANGELOG.md': `## ${version}\n- this release\n`,
              'news/img/app.svg': NEWS_ICON,
            })
          : await appArchive(manifest);
      files.serve(`/${id}-${version}.tar.gz`, bytes);
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/releases',
        headers: auth,
        payload: { download: `${files.origin}/${id}-${version}.tar.gz`, signature: signWith(id, bytes) },
      });
      if (response.statusCode >= 300) throw new Error(response.body);
    }
  }
  await importPlatformReleases(
    ['32.0.1', '31.0.4', '30.0.9'].map((version) => ({ version, hasRelease: true, isSupported: true })),
    TEST_ACTING,
    server.container.catalog,
  );
  await createUser(server.container, 'rosa', PASSWORD);
  const rated = await server.app.inject({
    method: 'POST',
    url: '/api/v1/apps/news/ratings',
    headers: { authorization: basic('rosa', PASSWORD) },
    payload: {
      rating: 0.75,
      comment: 'Reads **every** feed I have thrown at it. Syncs well with the phone app.',
      language: 'en',
    },
  });
  if (rated.statusCode >= 300) throw new Error(rated.body);
  // Rosa's comment reported by Tom, and answered by news's owner: the moderation queue and the reply.
  const tom = await createUser(server.container, 'tom', PASSWORD);
  const rosasRating = await server.container.database.db
    .selectFrom('ratings')
    .select('id')
    .where('app_id', '=', 'news')
    .executeTakeFirstOrThrow();
  await reportComment(
    Number(rosasRating.id),
    'Reads like an advertisement for the phone app',
    tom,
    TEST_ACTING,
    server.container.moderation,
  );
  const owner = await server.container.accounts.store.findUserByUsername('alice');
  if (owner === null) throw new Error('no alice');
  await replyToComment(
    Number(rosasRating.id),
    'Thank you! The phone app is made by volunteers too.',
    owner,
    TEST_ACTING,
    server.container.moderation,
  );
  // Two scoped tokens for the tokens page.
  for (const payload of [
    { name: 'GitHub release workflow', scopes: ['release:publish'], apps: ['news'], expiresInDays: 30 },
    { name: 'Download numbers script', scopes: ['app:downloads'] },
  ]) {
    const made = await server.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: { authorization: basic('rosa', PASSWORD) },
      payload,
    });
    if (made.statusCode >= 300) throw new Error(made.body);
  }
  // Downloads for the manage page's charts: some now, and some over the past weeks.
  const releaseIds = await server.container.database.db
    .selectFrom('releases')
    .select(['id', 'version'])
    .where('app_id', '=', 'news')
    .orderBy('id')
    .execute();
  for (const [i, release] of releaseIds.entries()) {
    const days = Array.from({ length: 12 }, (_, week) => ({
      releaseId: Number(release.id),
      day: new Date(Date.now() - (week * 7 + 1) * 86_400_000).toISOString().slice(0, 10),
      count: Math.max(0, 40 + i * 25 - week * (5 + i * 3) + ((week * 7) % 11)),
    }));
    await downloadStatsRepository(server.container.database.db).add(days);
  }
  const latest = releaseIds[releaseIds.length - 1]?.version ?? '';
  for (let i = 0; i < 5; i += 1) await server.app.inject({ url: `/api/v1/archives/news/${latest}.tar.gz` });
  await server.container.downloads.counter.flush();
  await server.container.screenshots.sweep();
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  fs.mkdirSync(OUT, { recursive: true });
  const browser = await launchBrowser();
  for (const [kind, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    // A fixed request id keeps the error page's screenshot the same from run to run.
    const tab = await browser.newPage({ viewport, extraHTTPHeaders: { 'x-request-id': 'screenshot' } });
    const shoot = async (name: string, url: string) => {
      await tab.goto(`${origin}${url}`, { waitUntil: 'networkidle' });
      await tab.screenshot({ path: path.join(OUT, `${name}-${kind}.png`), fullPage: true });
    };
    for (const [name, url] of [
      ['home', '/'],
      ['app', '/apps/news'],
      ['search', '/search?q=n'],
      ['not-found', '/apps/nope'],
      ['sign-in', '/account/login'],
      ['sign-up', '/account/signup'],
      ['api', '/api/'],
      ['upgrade', '/upgrade'],
      ['external-refused', '/account/external/example/callback?state=forged'],
    ] as const) {
      await shoot(name, url);
    }
    // The same pages in German and in Arabic (right to left), as a browser asking for them gets them.
    for (const language of ['de', 'ar']) {
      const translated = await browser.newPage({
        viewport,
        extraHTTPHeaders: { 'x-request-id': 'screenshot', 'accept-language': language },
      });
      for (const [name, url] of [
        ['home', '/'],
        ['app', '/apps/news'],
        ['search', '/search?q=n'],
        ['sign-in', '/account/login'],
        ['api', '/api/'],
      ] as const) {
        await translated.goto(`${origin}${url}`, { waitUntil: 'networkidle' });
        await translated.screenshot({ path: path.join(OUT, `${language}-${name}-${kind}.png`), fullPage: true });
      }
      await translated.close();
    }
    // The upgrade planner with a plan: news installed at an older version, a shipped app, a disabled one.
    await tab.goto(`${origin}/upgrade`);
    await tab.getByLabel('The output of occ app:list --output=json').fill(
      JSON.stringify({
        enabled: { files: '2.2.0', news: '0.9.0', notes: '1.0.0' },
        disabled: { encryption: '2.18.0' },
      }),
    );
    await tab.getByRole('button', { name: 'Plan the upgrade' }).click();
    await tab.waitForLoadState('networkidle');
    await tab.screenshot({ path: path.join(OUT, `upgrade-plan-${kind}.png`), fullPage: true });
    await tab.goto(`${origin}/account/login?next=%2Faccount`);
    await fillSignIn(tab, 'rosa', PASSWORD);
    await tab.waitForURL(`${origin}/account`);
    await tab.getByRole('button', { name: 'Show my token' }).click();
    await tab.screenshot({ path: path.join(OUT, `account-${kind}.png`), fullPage: true });
    await shoot('app-signed-in', '/apps/news');
    await shoot('account-tokens', '/account/tokens');
    await shoot('account-security', '/account/security');
    await tab.getByRole('button', { name: 'Sign out' }).click();
    // The developer pages, as the owner of news and notes; then the admin pages.
    for (const [user, pages] of [
      [
        'alice',
        [
          ['developer', '/developer'],
          ['developer-certificate', '/developer/certificates?app=news'],
          ['developer-register', '/developer/register?app=news'],
          ['developer-publish', '/developer/publish'],
          ['developer-generate', '/developer/apps/generate'],
          ['developer-manage', '/developer/apps/news'],
          ['app-owner', '/apps/news'],
        ],
      ],
      [
        'ada',
        [
          ['admin-overview', '/admin'],
          ['admin-users', '/admin/users'],
          ['admin-reports', '/admin/reports'],
          ['admin-certificates', '/admin/certificates'],
          ['admin-categories', '/admin/categories'],
          ['admin-audit', '/admin/audit'],
        ],
      ],
    ] as const) {
      await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
      await fillSignIn(tab, user, PASSWORD);
      await tab.waitForURL(`${origin}/developer`);
      for (const [name, url] of pages) await shoot(name, url);
      await tab.getByRole('button', { name: 'Sign out' }).click();
    }
    await tab.close();
  }
  await mirrorScreenshots(browser);
  await browser.close();
  console.log(`screenshots in ${OUT}`);
} finally {
  await server.close();
  await files.close();
}

/** A store in mirror mode (a second store as its upstream): the app page and the manage page with download counts. */
async function mirrorScreenshots(browser: Awaited<ReturnType<typeof launchBrowser>>): Promise<void> {
  const upstream = await startUpstreamStore([
    ['news', '1.0.0'],
    ['news', '1.1.0'],
    ['notes', '2.0.0'],
  ]);
  const mirror = await createTestServer({ env: { ...upstream.mirrorEnv }, downloadCa: [TEST_TLS_CA] });
  try {
    if (mirror.container.mirror.deps === null) throw new Error('mirror mode is off');
    await syncMirror(TEST_ACTING, mirror.container.mirror.deps);
    await createUser(mirror.container, 'ada', PASSWORD, { isAdmin: true });
    for (let i = 0; i < 3; i += 1) await mirror.app.inject({ url: '/api/v1/archives/news/1.1.0.tar.gz' });
    await mirror.container.downloads.counter.flush();
    await mirror.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(mirror.app.server.address() as AddressInfo).port}`;
    for (const [kind, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const tab = await browser.newPage({ viewport });
      await tab.goto(`${origin}/apps/news`, { waitUntil: 'networkidle' });
      await tab.screenshot({ path: path.join(OUT, `mirror-app-${kind}.png`), fullPage: true });
      await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
      await fillSignIn(tab, 'ada', PASSWORD);
      await tab.waitForURL(`${origin}/developer`);
      await tab.goto(`${origin}/developer/apps/news`, { waitUntil: 'networkidle' });
      await tab.screenshot({ path: path.join(OUT, `mirror-developer-manage-${kind}.png`), fullPage: true });
      await tab.close();
    }
  } finally {
    await mirror.close();
    await upstream.close();
  }
}
