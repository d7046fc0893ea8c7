import assert from 'node:assert/strict';
import { CATALOGUES } from '../../src/i18n/messages.ts';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { BROWSER_SKIP, TEXT_RULES, fillSignIn, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { runAppstore } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';

/** What a hostile app developer puts in a description: none of it may run or become markup. */
const HOSTILE = [
  '# News',
  '<script>alert("script tag")</script>',
  '<img src=x onerror="alert(\'onerror\')">',
  '<svg onload="alert(\'svg\')"><script>alert("svg script")</script></svg>',
  '[click me](javascript:alert("link"))',
  '[fine](https://example.org/docs)',
].join('\n\n');

describe(`the public website (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let mail: MailServer;

  before(async () => {
    files = await startArchiveServer();
    mail = await startMailServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_SMTP_URL: mail.url,
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importPlatformReleases(
      ['32.0.1', '31.0.4', '30.0.9'].map((version) => ({ version, hasRelease: true, isSupported: true })),
      TEST_ACTING,
      server.container.catalog,
    );
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({
        id,
        translations: { en: { name: id, description: id === 'multimedia' ? 'Music, video and photos.' : '' } },
      })),
      TEST_ACTING,
      server.container.catalog,
    );
    const token = await userWithToken(server.container, 'alice');
    const send = injectSend(server.app);
    assert.equal(await registerFixtureApp(send, token, 'news'), 201);
    const german =
      '<name lang="de">Nachrichten</name><summary lang="de">Ein Feedreader</summary><description lang="de">Liest Feeds.</description>';
    const published = await publishFixtureRelease(send, token, files, {
      id: 'news',
      version: '2.0.0',
      description: HOSTILE,
      name: 'News &lt;b&gt;bold&lt;/b&gt;',
      extra: german,
    });
    assert.equal(published.status, 201, published.text);
  });
  after(async () => {
    await server.close();
    await files.close();
    await mail.close();
  });

  const page = (url: string, accept = 'text/html') => server.app.inject({ method: 'GET', url, headers: { accept } });

  test('the home page lists the app, with the security headers of every page', async () => {
    const response = await page('/');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<a class="card-link" href="\/apps\/news">/);
    assert.match(response.body, /News &lt;b&gt;bold&lt;\/b&gt;/, 'the name is text');
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    assert.ok(Buffer.byteLength(response.body) < 100 * 1024);
  });

  test('the app page renders the description as Markdown, and hostile markup as text', async () => {
    const response = await page('/apps/news');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /<h3>News<\/h3>/, "Markdown headings render, below the page's own");
    assert.doesNotMatch(response.body, /<script|<svg|<img src="x"|<[^>]*\son(error|load)=/i);
    assert.doesNotMatch(response.body, /href="javascript:/i);
    assert.match(response.body, /<a href="https:\/\/example\.org\/docs" rel="nofollow ugc noopener">fine<\/a>/);
    assert.match(response.body, /2\.0\.0/);
    assert.match(response.body, /[0-9A-F]{2}(:[0-9A-F]{2}){31}/, 'the certificate fingerprint');
    assert.ok(response.headers['content-security-policy']);
    // Versions are written one way everywhere: install help and each release.
    assert.doesNotMatch(response.body, /&gt;=|>=\d/);
    assert.match(response.body, /<dd>30 to 32<\/dd>/);
  });

  test('search, filters and category pages', async () => {
    const found = await page('/search?q=news');
    assert.equal(found.statusCode, 200);
    assert.match(found.body, /1 app found/);
    assert.match(found.body, /href="\/apps\/news"/);
    // One box holds the words: the header's (the filters keep them hidden); no "Relevance" without words.
    assert.match(found.body, /<input id="header-q" name="q" type="search"[^>]* value="news">/);
    assert.match(found.body, /<input type="hidden" name="q" value="news">/);
    assert.doesNotMatch(found.body, /<input id="q"/);
    assert.match(found.body, /<option value="relevance" selected>/);
    const all = await page('/search');
    assert.doesNotMatch(all.body, /value="relevance"/);
    assert.match(all.body, /<option value="name" selected>/, 'all apps: by name');
    assert.match(all.body, /<h1>All apps<\/h1>/);
    assert.match(
      all.body,
      /<nav aria-label="Site"><ul><li><a href="\/search">Apps<\/a>/,
      "the header's Apps lists them all",
    );
    assert.match((await page('/search?q=nothing+like+it')).body, /0 apps found/);
    assert.match((await page('/search?nextcloud=31')).body, /1 app found/, 'news supports 30 to 32');
    assert.match((await page('/search?nextcloud=33.0.1')).body, /0 apps found/);
    assert.match((await page('/search?featured=1')).body, /0 apps found/);
    assert.match(
      (await page('/categories/multimedia')).body,
      /<h1>Category: multimedia<\/h1>\s*<p class="lead">Music, video and photos\.<\/p>[\s\S]*1 app found/,
    );
    assert.match((await page('/search?q=%3Cscript%3E')).body, /Apps matching “&lt;script&gt;”/, 'the words are text');
    const bad = await page('/search?sort=cheapest&page=x');
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /^text\/html/, 'a browser gets a page for a 400 too');
    assert.match(bad.body, /sort/);
  });

  test("languages: the browser's first, a choice from the switcher kept in a cookie, English as the fallback", async () => {
    assert.match(
      (await server.app.inject({ method: 'GET', url: '/apps/news', headers: { 'accept-language': 'de-DE,de;q=0.9' } }))
        .body,
      /<h1 lang="de" dir="ltr">Nachrichten<\/h1>/,
    );
    assert.match(
      (await server.app.inject({ method: 'GET', url: '/apps/news', headers: { 'accept-language': 'fr' } })).body,
      /<h1 lang="en" dir="ltr">News &lt;b&gt;/,
    );
    const home = (await page('/')).body;
    assert.match(home, /<form class="language" action="\/language" method="get">/);
    assert.match(home, /<option value="de" lang="de">Deutsch<\/option>/, 'each language by its own name');
    const chosen = await page('/language?lang=de&next=%2Fapps%2Fnews');
    assert.equal(chosen.statusCode, 303);
    assert.equal(chosen.headers.location, '/apps/news');
    const cookie = String(chosen.headers['set-cookie']);
    assert.match(cookie, /^appstore_lang=de;.*HttpOnly.*SameSite=Lax/);
    const inGerman = await server.app.inject({
      method: 'GET',
      url: '/apps/news',
      headers: { cookie: 'appstore_lang=de', 'accept-language': 'en' },
    });
    assert.match(inGerman.body, /<h1 lang="de" dir="ltr">Nachrichten<\/h1>/, 'the choice wins over the browser');
    assert.equal(
      (await page('/language?lang=de&next=%2F%2Fevil.example%2F')).headers.location,
      '/',
      'never to another host',
    );
    // A path outside Latin-1 cannot go in a header as it is: percent-encoded, never a 500.
    const wide = await page('/language?lang=en&next=%2F%C4%80%20x');
    assert.equal(wide.statusCode, 303);
    assert.equal(wide.headers.location, '/%C4%80%20x');
    assert.equal((await page('/language?lang=de&next=https%3A%2F%2Fevil.example')).headers.location, '/');
    assert.equal((await page('/language?lang=%3Cx%3E')).statusCode, 400);
  });

  test('the API page reads like a reference: groups by task, named responses, code as code', async () => {
    const body = (await page('/api/')).body;
    const headings = [...body.matchAll(/<h2 id="(?:tag-[a-z]+|authentication)">([^<]+)<\/h2>/g)].map((m) => m[1]);
    assert.deepEqual(headings, [
      'Authentication',
      'Listings',
      'Accounts and tokens',
      'Registering apps',
      'Publishing releases',
      'Ratings',
      'Archives',
      'Feeds',
      'System',
    ]);
    assert.match(
      body,
      /GET \/api\/v1\/archives\/\{appId\}\/\{file\}|\/api\/v1\/archives\//,
      'a store that keeps archives serves them',
    );
    assert.doesNotMatch(body, /Default Response/);
    assert.doesNotMatch(body, /`/, 'no Markdown backticks shown as such');
    assert.match(body, /<code>Authorization: Bearer TOKEN<\/code>/);
    assert.match(body, /<dt>304<\/dt><dd>Not modified/);
  });

  test('errors: a browser gets a page, an API client JSON', async () => {
    const missing = await page('/apps/nope');
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assert.match(missing.body, /Page not found/);
    assert.ok(missing.headers['content-security-policy']);
    const unknown = await page('/no/such/page');
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /Page not found/);
    // The same header as every page: sign-in links and the language switcher.
    for (const body of [missing.body, unknown.body]) {
      assert.match(body, /href="\/account\/login\?next=/);
      assert.match(body, /<select[^>]*name="lang"/);
    }
    const api = await page('/api/v1/nope');
    assert.equal(api.statusCode, 404);
    assert.equal(api.json().code, 'not_found');
    const json = await page('/apps/nope', 'application/json');
    assert.equal(json.json().code, 'app_not_found');
    assert.equal((await page('/apps/Not-An-Id', 'application/json')).statusCode, 400);
  });

  // What a visitor's browser talks to is what users run: `bin/appstore.js serve`, the bundle,
  // on the database the data above was written to.
  describe('in a real browser, against bin/appstore.js serve', { skip: BROWSER_SKIP }, () => {
    let browser: Browser;
    let serve: ServeProcess;
    let origin = '';
    const storeEnv = () => ({ ...server.database.env, APPSTORE_SMTP_URL: mail.url });
    before(async () => {
      serve = await startServeProcess(storeEnv());
      origin = serve.url;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      assert.equal(await serve?.stop(), 0, serve?.output());
    });

    // The check the page tests rely on finds what it is for, on a context's first page (axe
    // injected) and on later ones (axe loaded by the context's init script), under a CSP that
    // refuses every script, with all rules and with the text rules.
    test('the axe check fails a page made to fail, first and later in a context', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const tab = await context.newPage();
      const body = (broken: boolean) =>
        `<!doctype html><html lang="en"><title>Check</title><main><h1>Check</h1>${
          broken ? '<img src="a.png"><button></button><p style="color:#ccc;background:#fff">faint</p>' : '<p>Fine</p>'
        }</main></html>`;
      await tab.route('http://axe-check.test/**', (route) =>
        route.fulfill({
          contentType: 'text/html',
          headers: { 'content-security-policy': "script-src 'none'" },
          body: body(route.request().url().endsWith('/broken')),
        }),
      );
      const ids = (found: { serious: unknown[] }) => found.serious.map((v) => (v as { id: string }).id).sort();
      for (const path of ['/broken', '/fine', '/broken']) {
        await tab.goto(`http://axe-check.test${path}`);
        const all = await seriousViolations(tab);
        const text = await seriousViolations(tab, TEXT_RULES);
        if (path === '/fine') {
          assert.deepEqual([ids(all), ids(text)], [[], []], path);
        } else {
          assert.deepEqual(ids(all), ['button-name', 'color-contrast', 'image-alt'], `${path}: ${all.all}`);
          assert.deepEqual(ids(text), ['button-name', 'image-alt'], `${path}: ${text.all}`);
        }
      }
      await context.close();
    });

    test('no serious or critical accessibility violation (axe-core) on any page kind', async () => {
      // axe is injected as a script, which the pages' CSP would refuse: this context bypasses it.
      const context = await browser.newContext({ bypassCSP: true });
      const tab = await context.newPage();
      // Signed in, so that the app page shows its rating form and the account page is there.
      await createUser(server.container, 'axel', 'violet tractor nebula quilt');
      await tab.goto(`${origin}/account/login`);
      await fillSignIn(tab, 'axel', 'violet tractor nebula quilt');
      await tab.waitForURL(`${origin}/`);
      const check = async (urls: readonly string[]) => {
        for (const url of urls) {
          await tab.goto(`${origin}${url}`);
          const { serious, all } = await seriousViolations(tab);
          assert.deepEqual(serious, [], `${url}: ${all}`);
        }
      };
      await check(['/', '/apps/news', '/search?q=news', '/categories/multimedia', '/apps/nope', '/account', '/api/']);
      // The same page kinds in the other eight languages: languages-browser.test.ts (npm run test:long, in CI).
      await context.addCookies([{ name: 'appstore_lang', value: 'en', url: origin }]);
      await tab.goto(`${origin}/`);
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await check(['/account/login', '/account/signup', '/account/reset']);
      await context.close();
    });

    test('sign up, confirm by mail, sign in, rate and comment, reset the password by mail, replace the token, sign out', async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
      const tab = await context.newPage();
      const problems: string[] = [];
      tab.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      tab.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      const mailedPath = async (address: string) => {
        const link = (await mail.nextMailTo(address)).links[0];
        assert.ok(link !== undefined);
        return new URL(link).pathname;
      };
      const password = 'amber walrus cinema folklore';
      const newPassword = 'quiet harbor lantern meadow';

      await tab.goto(`${origin}/`);
      await tab.getByRole('link', { name: 'Sign up' }).click();
      await tab.getByLabel('Username').fill('wendy');
      await tab.getByLabel('E-mail address').fill('wendy@example.org');
      await tab.getByLabel('Password').fill(password);
      await tab.getByRole('button', { name: 'Sign up' }).last().click();
      await tab.getByRole('heading', { name: 'Check your inbox' }).waitFor();

      await tab.goto(`${origin}${await mailedPath('wendy@example.org')}`);
      await tab.getByRole('button', { name: 'Confirm my address' }).click();
      await tab.getByRole('heading', { name: 'Address confirmed' }).waitFor();
      await tab.getByRole('link', { name: 'Sign in' }).last().click();
      await fillSignIn(tab, 'wendy', password);
      await tab.getByRole('link', { name: 'Account (wendy)' }).waitFor();

      // Rate and comment from the app page; hostile Markdown stays text.
      await tab.goto(`${origin}/apps/news`);
      assert.equal(await tab.getByText('Nextcloud 32').count(), 1, 'the latest version per Nextcloud version');
      // Stars are radio buttons, reached and chosen with the keyboard; languages are named.
      const stars = tab.getByRole('group', { name: 'Stars' });
      const radio = await stars.getByRole('radio', { name: '5 stars' }).boundingBox();
      assert.ok(
        radio !== null && radio.width < 40,
        `a radio button beside its stars, not stretched: ${radio?.width}px`,
      );
      await stars.getByRole('radio', { name: '5 stars' }).focus();
      await tab.keyboard.press('ArrowDown');
      assert.equal(await stars.getByRole('radio', { name: '4 stars' }).isChecked(), true);
      assert.deepEqual(
        await tab
          .getByLabel('Language of the comment')
          .locator('option[value="de"], option[value="pt_BR"]')
          .allTextContents(),
        ['Deutsch', 'Português (Brasil)'],
      );
      await tab
        .getByLabel('Comment (optional, Markdown)')
        .fill('Solid *reader*. <img src=x onerror="alert(1)"> [x](javascript:alert(2))');
      await tab.getByRole('button', { name: 'Save rating' }).click();
      await tab.getByText('Your rating was saved.').waitFor();
      assert.equal(await tab.locator('.comment em').textContent(), 'reader');
      assert.equal(await tab.locator('.comment').getByRole('img', { name: '4 out of 5 stars' }).count(), 1);
      assert.equal(await tab.locator('.comment img, .comment a[href^="javascript"]').count(), 0);
      const ratings = (await (await fetch(`${origin}/api/v1/ratings.json`)).json()) as Array<{
        app: string;
        rating: number;
        translations: Record<string, { comment: string }>;
      }>;
      const wendys = ratings.find((r) => r.translations.en?.comment.startsWith('Solid'));
      assert.equal(wendys?.rating, 0.75);

      // Sign out, then reset the password by mail.
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByRole('link', { name: 'Sign in' }).first().click();
      await tab.getByRole('link', { name: 'Forgot your password?' }).click();
      await tab.getByLabel('E-mail address').fill('wendy@example.org');
      await tab.getByRole('button', { name: 'Send me a link' }).click();
      await tab.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      await tab.goto(`${origin}${await mailedPath('wendy@example.org')}`);
      await tab.getByLabel('New password').fill(newPassword);
      await tab.getByRole('button', { name: 'Set the password' }).click();
      await tab.getByRole('heading', { name: 'Password changed' }).waitFor();
      await tab.goto(`${origin}/account/login?next=%2Faccount`);
      await fillSignIn(tab, 'wendy', newPassword);
      await tab.waitForURL(`${origin}/account`);

      // The token, shown on demand, then replaced: the old one stops working.
      await tab.getByRole('button', { name: 'Show my token' }).click();
      const token = await tab.getByLabel('Your API token').inputValue();
      assert.match(token, /^[0-9a-f]{64}$/);
      await tab.getByRole('button', { name: 'Replace my token' }).click();
      const fresh = await tab.getByLabel('Your API token').inputValue();
      assert.notEqual(fresh, token);
      const old = await fetch(`${origin}/api/v1/token/new`, {
        method: 'POST',
        headers: { authorization: `Token ${token}` },
      });
      assert.equal(old.status, 401);

      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.getByRole('link', { name: 'Sign in' }).first().waitFor();
      const overflow = await tab.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0);
      assert.deepEqual(problems, []);
      await context.close();
    });

    test('moderation in Arabic at 390 px (the bundle): a report, the queue, the hidden comment leaves ratings.json', async () => {
      await createUser(server.container, 'mona', 'mona rates the news app');
      await createUser(server.container, 'omar', 'omar reports a comment');
      await createUser(server.container, 'nadia', 'nadia moderates the store', { isAdmin: true });
      const rated = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps/news/ratings',
        headers: { authorization: basic('mona', 'mona rates the news app') },
        payload: { rating: 0, comment: 'Buy cheap watches at spam.example', language: 'en' },
      });
      assert.equal(rated.statusCode, 201, rated.body);
      const ar = (id: string) => CATALOGUES.ar[id] ?? id;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      await context.addCookies([{ name: 'appstore_lang', value: 'ar', url: origin }]);
      const tab = await context.newPage();
      const signIn = async (username: string, password: string, next: string) => {
        await tab.goto(`${origin}/account/login?next=${encodeURIComponent(next)}`);
        await tab.getByLabel(ar('site.username')).fill(username);
        await tab.getByLabel(ar('site.password')).fill(password);
        await tab
          .getByRole('button', { name: ar('site.signIn') })
          .last()
          .click();
        await tab.waitForURL(`${origin}${next}`);
      };
      await signIn('omar', 'omar reports a comment', '/apps/news');
      const comment = tab.locator('li.comment', { hasText: 'Buy cheap watches' });
      await comment.getByText(ar('site.reportComment')).click();
      await comment.getByLabel(ar('site.reportReason')).fill('Spam for watches, not about the app');
      await comment.getByRole('button', { name: ar('site.sendReport') }).click();
      await tab.getByText(ar('site.commentReported')).waitFor();
      await tab.getByRole('button', { name: ar('site.signOut') }).click();
      await signIn('nadia', 'nadia moderates the store', '/admin/reports');
      assert.equal(await tab.locator('html').getAttribute('dir'), 'rtl');
      const reported = tab.locator('li.card', { hasText: 'Buy cheap watches' });
      await reported.getByText('Spam for watches, not about the app').waitFor();
      await reported.getByRole('button', { name: ar('admin.hideComment') }).click();
      await tab.getByText(ar('admin.commentHidden')).waitFor();
      const overflow = await tab.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `the queue is ${overflow}px wider than the phone`);
      const ratings = (await (await fetch(`${origin}/api/v1/ratings.json`)).json()) as Array<{
        app: string;
        rating: number;
        translations: Record<string, unknown>;
      }>;
      const mona = ratings.filter((r) => r.app === 'news' && r.rating === 0);
      assert.equal(mona.length, 1, 'the rating stays');
      assert.deepEqual(mona[0]?.translations, {}, 'its comment left ratings.json');
      await tab.goto(`${origin}/apps/news`);
      assert.equal(await tab.getByText('Buy cheap watches').count(), 0);
      await context.close();
    });

    test('an invitation from `appstore user invite` (the bundle): the mailed link, a password chosen, signed in', async () => {
      const context = await browser.newContext();
      const tab = await context.newPage();
      const invited = await runAppstore(
        ['user', 'invite', 'ivy', '--email', 'ivy@example.org', '--first-name', 'Ivy'],
        storeEnv(),
      );
      assert.equal(invited.code, 0, invited.stderr);
      const link = (await mail.nextMailTo('ivy@example.org')).links[0];
      assert.ok(link !== undefined);
      await tab.goto(`${origin}${new URL(link).pathname}`);
      await tab.getByLabel('New password').fill('saffron glacier pocket violin');
      await tab.getByRole('button', { name: 'Set the password' }).click();
      await tab.getByRole('heading', { name: 'Password changed' }).waitFor();
      await tab.goto(`${origin}/account/login?next=%2Faccount`);
      await fillSignIn(tab, 'ivy', 'saffron glacier pocket violin');
      await tab.waitForURL(`${origin}/account`);
      await tab.getByRole('link', { name: 'Account (ivy)' }).waitFor();
      await context.close();
    });

    test('browse from the home page to the app page: nothing hostile runs, no console errors, phone width too', async () => {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 375, height: 740 },
      ]) {
        const context = await browser.newContext({ viewport });
        const tab = await context.newPage();
        const dialogs: string[] = [];
        const problems: string[] = [];
        tab.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
        tab.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        tab.on('pageerror', (error) => problems.push(error.message));
        await tab.goto(`${origin}/`);
        assert.equal(await tab.title(), 'App Store');
        await tab.getByRole('link', { name: 'News <b>bold</b>' }).first().click();
        await tab.waitForURL(`${origin}/apps/news`);
        assert.equal(await tab.getByRole('heading', { level: 1 }).first().textContent(), 'News <b>bold</b>');
        assert.equal(await tab.locator('.markdown script, .markdown img, .markdown svg').count(), 0);
        assert.ok(
          (await tab.getByText('<script>alert("script tag")</script>').count()) > 0,
          'the script is shown as text',
        );
        await tab.getByText('click me').first().click();
        // Phones: nothing wider than the screen.
        const overflow = await tab.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `the page is ${overflow}px wider than a ${viewport.width}px screen`);
        // Search from the header, then narrow by the Nextcloud version.
        await tab.getByRole('searchbox', { name: 'Search apps' }).first().fill('news');
        await tab.getByRole('button', { name: 'Search' }).first().click();
        await tab.waitForURL(/\/search\?q=news/);
        assert.equal(await tab.getByRole('status').textContent(), '1 app found');
        await tab.getByLabel('Supports Nextcloud').fill('99');
        await tab.getByRole('button', { name: 'Show apps' }).click();
        await tab.waitForURL(/nextcloud=99/);
        assert.equal(await tab.getByRole('status').textContent(), '0 apps found');
        // Switch to German in the footer: the page comes back in German, and stays so.
        await tab.goto(`${origin}/apps/news`);
        await tab.getByLabel('Language').selectOption('de');
        await tab.getByRole('button', { name: 'Change' }).click();
        await tab.waitForURL(`${origin}/apps/news`);
        assert.equal(await tab.getByRole('heading', { level: 1 }).first().textContent(), 'Nachrichten');
        await tab.goto(`${origin}/`);
        assert.ok((await tab.getByRole('link', { name: 'Nachrichten' }).count()) > 0);
        assert.deepEqual(dialogs, []);
        assert.deepEqual(problems, []);
        await context.close();
      }
    });
  });
});
