import { SITE_LANGUAGES } from '../../src/i18n/site-languages.ts';
import { languageName } from '../../src/web/catalog-display.ts';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { addUser } from '../../src/domain/accounts/manage-users.ts';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { buildArchive, manifestXml, signWith } from '../helpers/app-archive.ts';
import type { ManifestOptions } from '../helpers/app-archive.ts';
import { BROWSER_SKIP, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { nestedUseIcon } from '../helpers/hostile-icons.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { injectSend, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M4 4h24v24H4z" fill="#fff"/></svg>';
/** Every trick an SVG has to run script or reach out: what is left must draw, nothing more. */
const HOSTILE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 32 32" onload="alert('onload')">
<script>alert('script')</script><use href="https://evil.example/sprite.svg#a"/><use xlink:href="http://127.0.0.1:9/leak.svg#b"/>
<image href="http://127.0.0.1:9/track.png" width="1" height="1"/><foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="http://127.0.0.1:9/"/></foreignObject>
<circle cx="16" cy="16" r="12" fill="#fff" style="fill:url(http://127.0.0.1:9/fill)"/></svg>`;
const BOMB =
  '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>';

describe(
  `the catalogue a visitor expects, in Chromium at desktop and phone width (${DIALECT})`,
  { skip: BROWSER_SKIP },
  () => {
    let server: TestServer;
    let files: ArchiveServer;
    let serve: ServeProcess;
    let browser: Browser;
    let origin = '';
    let send: Send;
    let token = '';
    let served = 0;

    const publish = async (options: ManifestOptions & { id: 'news' | 'notes' }, icon?: string) => {
      const folder = options.id;
      const bytes = await buildArchive({
        [`${folder}/appinfo/info.xml`]: manifestXml(options),
        [`${folder}/CHANGELOG.md`]: `## ${options.version ?? '1.0.0'}\n- this release\n`,
        ...(icon === undefined ? {} : { [`${folder}/img/app.svg`]: icon }),
      });
      served += 1;
      files.serve(`/r${served}.tar.gz`, bytes);
      const answer = await send('POST', '/api/v1/apps/releases', {
        headers: { authorization: `Token ${token}` },
        payload: { download: `${files.origin}/r${served}.tar.gz`, signature: signWith(options.id, bytes) },
      });
      assert.ok(answer.status === 201 || answer.status === 200, answer.text);
    };

    before(async () => {
      files = await startArchiveServer();
      server = await createTestServer({
        env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' },
        downloadCa: [TEST_TLS_CA],
      });
      await importPlatformReleases(
        ['32.0.1', '31.0.4', '30.0.9'].map((version) => ({ version, hasRelease: true, isSupported: true })),
        TEST_ACTING,
        server.container.catalog,
      );
      await importCategories(
        [
          {
            id: 'tools',
            translations: { en: { name: 'Tools', description: '' }, de: { name: 'Werkzeuge', description: '' } },
          },
          {
            id: 'organization',
            translations: {
              en: { name: 'Organization', description: '' },
              de: { name: 'Organisation', description: '' },
            },
          },
        ],
        TEST_ACTING,
        server.container.catalog,
      );
      send = injectSend(server.app);
      token = await userWithToken(server.container, 'alice');
      await registerFixtureApp(send, token, 'news');
      await registerFixtureApp(send, token, 'notes');
      const german =
        '<name lang="de">Nachrichten</name><summary lang="de">Ein Feedreader</summary><description lang="de">Liest Feeds.</description>';
      await publish(
        {
          id: 'news',
          version: '2.0.0',
          name: 'News',
          category: 'tools',
          description: 'Keeps your Büro informed.',
          extra: `${german}<author homepage="https://dev.example.org">Dana Dev</author>`,
        },
        ICON,
      );
      await publish(
        { id: 'notes', version: '1.0.0', name: 'Notes', category: 'organization', nextcloud: ['31', '32'] },
        HOSTILE_ICON,
      );
      // A rating by someone who gave no name: shown by their username, never their address.
      const rater = await addUser(
        { username: 'wendy', password: null, email: 'wendy@example.org', strength: 'waived' },
        TEST_ACTING,
        server.container.accounts,
      );
      const wendy = await getOrCreateToken(rater, TEST_ACTING, server.container.accounts);
      assert.equal(
        (
          await send('POST', '/api/v1/apps/news/ratings', {
            headers: { authorization: `Token ${wendy}` },
            payload: { rating: 0.75, comment: 'Reads **everything**' },
          })
        ).status,
        201,
      );
      serve = await startServeProcess(server.database.env);
      origin = serve.url;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      assert.equal(await serve?.stop(), 0, serve?.output());
      await server?.close();
      await files?.close();
    });

    /** A tab that records every dialog, script error and request that leaves the store. */
    const watchedTab = async (width: number, language = 'en') => {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        locale: language,
        extraHTTPHeaders: { 'accept-language': language },
      });
      const tab = await context.newPage();
      const problems: string[] = [];
      tab.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      tab.on('request', (request) => {
        if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
          problems.push(`request to ${request.url()}`);
      });
      return { context, tab, problems };
    };

    const noOverflow = async (tab: Page, url: string) => {
      const overflow = await tab.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${url} is wider than the screen by ${overflow}px`);
    };

    for (const width of [1280, 390]) {
      test(`at ${width} px: names, icons, stars, dates, install help, links, search, the API page`, async () => {
        const { context, tab, problems } = await watchedTab(width);
        await tab.goto(`${origin}/`);
        // Category names, not ids; cards of one height; an icon from the archive; stars with their text.
        const tags = (await tab.locator('#categories + ul').textContent()) ?? '';
        assert.match(tags, /Tools/);
        assert.match(tags, /Organization/);
        assert.doesNotMatch(tags, /\btools\b/);
        const heights = await tab
          .locator('#newest + ul .card')
          .evaluateAll((cards) => cards.map((card) => (card as HTMLElement).offsetHeight));
        assert.equal(heights.length, 2);
        assert.equal(new Set(heights).size, 1, `cards of one height: ${heights.join(', ')}`);
        const icon = tab.locator('.card', { hasText: 'News' }).locator('img.icon-small');
        assert.match((await icon.getAttribute('src')) ?? '', /^\/icons\/[0-9a-f]{32}\.svg$/);
        assert.ok(await icon.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), 'the icon is drawn');
        assert.equal(await tab.getByRole('img', { name: '4 out of 5 stars' }).count(), 1, 'news: 0.75 is 4 stars');
        await tab.getByText('Updated today').first().waitFor();
        await noOverflow(tab, '/');

        // The app page: install help, the commenter's name, dates, links.
        await tab.locator('.card-link', { hasText: 'News' }).click();
        await tab.getByRole('heading', { name: 'News', level: 1 }).waitFor();
        assert.equal((await tab.locator('pre.command').first().textContent())?.trim(), 'occ app:install news');
        assert.match((await tab.locator('#install ~ dl').first().textContent()) ?? '', /30 to 32/);
        // Each release's versions are written the same way (not ">=30 <=32").
        const releaseFacts = (await tab.locator('.releases').textContent()) ?? '';
        assert.doesNotMatch(releaseFacts, />=|<=/);
        assert.match(releaseFacts, /30 to 32/);
        assert.match(
          (await tab.getByRole('link', { name: 'Nextcloud 32: 2.0.0' }).getAttribute('href')) ?? '',
          /\/api\/v1\/archives\/news\/2\.0\.0\.tar\.gz$/,
        );
        assert.equal(await tab.locator('.commenter').textContent(), 'wendy');
        assert.doesNotMatch((await tab.locator('.comments').textContent()) ?? '', /@/);
        assert.match((await tab.locator('.release time').first().textContent()) ?? '', /^\w{3} \d{1,2}, \d{4}$/);
        assert.equal(await tab.getByRole('link', { name: 'Dana Dev' }).getAttribute('rel'), 'nofollow ugc noopener');
        await noOverflow(tab, '/apps/news');
        await tab.goto(`${origin}/apps/notes`);
        await noOverflow(tab, '/apps/notes');
        await tab.goBack();
        await tab.getByRole('navigation', { name: 'Categories' }).getByRole('link', { name: 'Tools' }).click();
        await tab.getByRole('heading', { name: 'Category: Tools' }).waitFor();
        await noOverflow(tab, '/categories/tools');

        // Search: accents and case do not matter, misspellings find, the count is said.
        await tab.goto(`${origin}/search?q=buro`);
        await tab.getByText('1 app found').waitFor();
        await tab.locator('.card-link', { hasText: 'News' }).waitFor();
        await tab.goto(`${origin}/search?q=${encodeURIComponent('NOTSE')}`);
        await tab.getByText('1 app found').waitFor();
        await tab.locator('.card-link', { hasText: 'Notes' }).waitFor();
        await noOverflow(tab, '/search');

        // The API page shows the fields of the publish body.
        await tab.goto(`${origin}/api/`);
        const publishing = tab.locator('section.operation', {
          has: tab.getByRole('heading', { name: 'POST /api/v1/apps/releases' }),
        });
        assert.match(
          (await publishing.textContent()) ?? '',
          /download string, 1–2048 characters required: HTTPS URL of the \.tar\.gz archive/,
        );
        assert.match(
          (await publishing.locator('pre').textContent()) ?? '',
          /^curl -X POST -H 'Authorization: Token TOKEN'/,
        );
        await noOverflow(tab, '/api/');
        assert.deepEqual(problems, []);
        await context.close();
      });
    }

    test('at 320 px, the narrowest phone: no page is wider than the screen', async () => {
      const { context, tab, problems } = await watchedTab(320);
      for (const url of [
        '/',
        '/apps/news',
        '/apps/notes',
        '/search',
        '/search?q=news',
        '/categories/tools',
        '/api/',
        '/nope',
      ]) {
        await tab.goto(`${origin}${url}`);
        await noOverflow(tab, url);
      }
      assert.deepEqual(problems, []);
      await context.close();
    });

    test('in German: category names and dates in German, languages by their own names', async () => {
      const { context, tab, problems } = await watchedTab(1280, 'de');
      await tab.goto(`${origin}/`);
      assert.match((await tab.locator('#categories + ul').textContent()) ?? '', /Werkzeuge/);
      assert.match((await tab.locator('.card-meta time').first().textContent()) ?? '', /heute/);
      assert.deepEqual(
        await tab.locator('#lang option').allTextContents(),
        SITE_LANGUAGES.map((language) => languageName(language)),
        'the shipped languages (the catalogue has only German and English app texts), each by its own name',
      );
      assert.equal(await tab.locator('html').getAttribute('lang'), 'de');
      await tab.goto(`${origin}/apps/news`);
      await tab.getByRole('heading', { name: 'Nachrichten', level: 1 }).waitFor();
      assert.match((await tab.locator('.release time').first().textContent()) ?? '', /^\d{2}\.\d{2}\.\d{4}$/);
      assert.equal((await tab.goto(`${origin}/categories/nope`))?.status(), 404);
      assert.deepEqual(problems, []);
      await context.close();
    });

    test('a hostile icon is inert: no dialog, no request leaves the page; served rebuilt, with a sandboxing CSP, as a download when opened directly', async () => {
      const { context, tab, problems } = await watchedTab(1280);
      await tab.goto(`${origin}/apps/notes`);
      const src = (await tab.locator('.app-title img.icon').getAttribute('src')) ?? '';
      const svg = await (await fetch(`${origin}${src}`)).text();
      assert.doesNotMatch(svg, /script|onload|href="http|xlink|image|foreignObject|iframe|url\(http/i, svg);
      const response = await fetch(`${origin}${src}`);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'.*sandbox/);
      assert.match(response.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
      assert.match(response.headers.get('content-disposition') ?? '', /^attachment/);
      assert.equal(
        (await fetch(`${origin}${src}`, { headers: { 'if-none-match': `"${src.slice(7, 39)}"` } })).status,
        304,
      );
      await tab.waitForTimeout(300);
      assert.deepEqual(problems, []);
      await context.close();
    });

    test('an icon that is an XML bomb, or too large, is left out: the release is published, the placeholder shown', async () => {
      await publish({ id: 'notes', version: '1.1.0', name: 'Notes', category: 'organization' }, BOMB);
      const { context, tab } = await watchedTab(390);
      await tab.goto(`${origin}/apps/notes`);
      await tab.locator('.app-title .icon-none').waitFor();
      const audit = await server.container.audit.find({ appId: 'notes', event: 'release.published', limit: 1 });
      assert.match(
        String(audit[0]?.details['icon']),
        /the icon was left out: img\/app\.svg: line 1: a DOCTYPE or entity declaration is not allowed/,
      );
      await publish(
        { id: 'notes', version: '1.2.0', name: 'Notes', category: 'organization' },
        `<svg xmlns="http://www.w3.org/2000/svg">${' '.repeat(5 * 1024 * 1024)}</svg>`,
      );
      const big = await server.container.audit.find({ appId: 'notes', event: 'release.published', limit: 1 });
      assert.match(String(big[0]?.details['icon']), /larger than 256 KiB/);
      await context.close();
    });

    test('an icon of 10⁹ nested <use> copies is left out for what it draws: home, search and the app page load (issue 49)', async () => {
      await publish({ id: 'notes', version: '1.3.0', name: 'Notes', category: 'organization' }, nestedUseIcon());
      const audit = await server.container.audit.find({ appId: 'notes', event: 'release.published', limit: 1 });
      assert.match(
        String(audit[0]?.details['icon']),
        /the icon was left out: img\/app\.svg takes more than 200000 units of drawing work/,
      );
      const { context, tab, problems } = await watchedTab(1280);
      // Before the bound, the renderer froze on each of these for about 45 s, and goto's own timeout ended the test.
      for (const path of ['/', '/search?q=notes', '/apps/notes']) {
        const started = performance.now();
        assert.equal((await tab.goto(`${origin}${path}`, { waitUntil: 'load' }))?.status(), 200);
        assert.equal(await tab.evaluate(() => document.readyState), 'complete');
        console.log(`${path} loaded in ${Math.round(performance.now() - started)} ms`);
      }
      await tab.locator('.app-title .icon-none').waitFor();
      assert.deepEqual(problems, []);
      await context.close();
    });

    test('axe: no serious or critical violation; pages under 100 KB of HTML and CSS', async () => {
      const context = await browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 800 } });
      const tab = await context.newPage();
      const css = (await (await fetch(`${origin}/static/site.css`)).text()).length;
      for (const url of ['/', '/apps/news', '/apps/notes', '/search?q=notse', '/categories/tools', '/api/']) {
        await tab.goto(`${origin}${url}`);
        const { serious, all } = await seriousViolations(tab);
        assert.deepEqual(serious, [], `${url}: ${all}`);
        const html = (await (await fetch(`${origin}${url}`, { headers: { accept: 'text/html' } })).text()).length;
        assert.ok(html + css < 100 * 1024, `${url}: ${html} bytes of HTML and ${css} of CSS`);
      }
      await context.close();
    });
  },
);
