import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import sharp from 'sharp';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { SITE_LANGUAGES } from '../../src/i18n/site-languages.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { createUser } from '../helpers/accounts.ts';
import { BROWSER_SKIP, TEXT_RULES, fillSignIn, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { longRunOnly } from '../helpers/long-runs.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'violet tractor nebula quilt';

/**
 * Every page kind in every shipped language (issue 54): axe-core finds no serious or critical
 * issue (all rules in Arabic, which is laid out right to left; the rules a page's words can
 * change in the others), and no page is wider than a 320 px phone. `npm test` checks English in website.test.ts
 * and developer-pages-admin.test.ts; this sweep of the other eight runs in `npm run test:long`
 * (and so in `.ci/run`).
 */
describe(`every page kind in every shipped language, in Chromium (${DIALECT})`, { ...longRunOnly }, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let serve: ServeProcess;
  let browser: Browser;

  before(async () => {
    if (BROWSER_SKIP !== false) return;
    files = await startArchiveServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_SCREENSHOTS_ALLOW_PRIVATE: '1',
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      [{ id: 'multimedia', translations: { en: { name: 'Multimedia', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    const ada = await createUser(server.container, 'ada', PASSWORD, { isAdmin: true, email: 'ada@example.org' });
    const token = await getOrCreateToken(ada, TEST_ACTING, server.container.accounts);
    const send = injectSend(server.app);
    assert.equal(await registerFixtureApp(send, token, 'news'), 201);
    files.serve(
      '/shot.png',
      await sharp({ create: { width: 1200, height: 750, channels: 3, background: { r: 0, g: 130, b: 201 } } })
        .png()
        .toBuffer(),
    );
    const published = await publishFixtureRelease(send, token, files, {
      id: 'news',
      version: '1.0.0',
      screenshots: [`${files.origin}/shot.png`],
    });
    assert.equal(published.status, 201, published.text);
    await server.container.screenshots.sweep();
    serve = await startServeProcess(server.database.env);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    if (serve !== undefined) assert.equal(await serve.stop(), 0, serve.output());
    await server?.close();
    await files?.close();
  });

  test('axe and a 320 px phone, signed out and signed in as an administrator', { skip: BROWSER_SKIP }, async () => {
    const origin = serve.url;
    const viewport = { width: 320, height: 740 };
    const main = await browser.newContext({ bypassCSP: true, viewport });
    const tab = await main.newPage();
    // The screenshot is the store's copy: every image of the page comes from the store, and draws.
    await tab.goto(`${origin}/apps/news`);
    await tab.locator('img[src*="/screenshots/"]').first().scrollIntoViewIfNeeded();
    await tab.waitForFunction(() =>
      [...document.images].some(
        (image) => image.src.includes('/screenshots/') && image.complete && image.naturalWidth > 0,
      ),
    );
    const images = await tab.evaluate(() =>
      [...document.images].map((image) => ({ src: image.src, width: image.naturalWidth })),
    );
    assert.ok(
      images.some((image) => image.src.includes('/screenshots/') && image.width === 480),
      JSON.stringify(images),
    );
    assert.ok(
      images.every((image) => image.src.startsWith(origin)),
      JSON.stringify(images),
    );

    /** The pages in one language, in a context of its own (the language is a cookie), signed in or not as `state` says. */
    const check = async (
      language: string,
      urls: readonly string[],
      state: Awaited<ReturnType<BrowserContext['storageState']>>,
    ) => {
      const context = await browser.newContext({ bypassCSP: true, viewport, storageState: state });
      await context.addCookies([{ name: 'appstore_lang', value: language, url: origin }]);
      const page = await context.newPage();
      try {
        for (const url of urls) {
          await page.goto(`${origin}${url}`);
          assert.equal(await page.locator('html').getAttribute('lang'), language.replace('_', '-'), url);
          assert.equal(await page.locator('html').getAttribute('dir'), language === 'ar' ? 'rtl' : 'ltr', url);
          // All of axe's rules in Arabic, whose pages are laid out right to left; in the others
          // the rules their words can change (TEXT_RULES), as the English pages had all of them.
          const { serious, all } = await seriousViolations(page, language === 'ar' ? undefined : TEXT_RULES);
          assert.deepEqual(serious, [], `${language} ${url}: ${all}`);
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          assert.ok(overflow <= 0, `${language} ${url} is wider than the phone by ${overflow}px`);
        }
      } finally {
        await context.close();
      }
    };
    // Two languages at a time: the machine has two cores, which the store and Chromium share.
    const everyLanguage = async (
      urls: readonly string[],
      state: Awaited<ReturnType<BrowserContext['storageState']>>,
    ) => {
      for (let i = 0; i < SITE_LANGUAGES.length; i += 2)
        await Promise.all(SITE_LANGUAGES.slice(i, i + 2).map((language) => check(language, urls, state)));
    };
    await everyLanguage(
      [
        '/',
        '/apps/news',
        '/search?q=news',
        '/apps/nope',
        '/account/login',
        '/account/signup',
        '/account/reset',
        '/upgrade',
        '/api/',
      ],
      await main.storageState(),
    );
    await tab.goto(`${origin}/account/login?next=%2Faccount`);
    await fillSignIn(tab, 'ada', PASSWORD);
    await tab.waitForURL(`${origin}/account`);
    await everyLanguage(
      [
        '/account',
        '/account/security',
        '/account/tokens',
        '/developer',
        '/developer/certificates?app=news',
        '/developer/register',
        '/developer/publish',
        '/developer/apps/news',
        '/admin',
        '/admin/users',
        '/admin/reports',
        '/admin/categories',
        '/admin/platforms',
        '/admin/certificates',
        '/admin/audit',
      ],
      await main.storageState(),
    );
    await main.close();
  });
});
