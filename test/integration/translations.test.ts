import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOGUES } from '../../src/i18n/messages.ts';
import { SITE_LANGUAGES } from '../../src/i18n/site-languages.ts';
import { createUser } from '../helpers/accounts.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';
import { escapeHtml } from '../../src/web/html.ts';
import { INVALID_CREDENTIALS } from '../../src/domain/accounts/authenticate.ts';
import { translateSaid } from '../../src/i18n/refusals.ts';
import { said } from '../../src/i18n/said.ts';

/** A catalogue's message as a page shows it (escaped). */
const shown = (language: keyof typeof CATALOGUES, id: string): string => escapeHtml(CATALOGUES[language][id] ?? id);

/** The site in the visitor's language (issue 54 §1): pages, the switcher, and mails in the user's language. */
describe(`the site in the visitor's language (${DIALECT})`, () => {
  let server: TestServer;
  let mail: MailServer;
  const page = (url: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...headers } });

  before(async () => {
    mail = await startMailServer();
    server = await createTestServer({ env: { APPSTORE_SMTP_URL: mail.url } });
  });
  after(async () => {
    await server.close();
    await mail.close();
  });

  test("Accept-Language picks the page's language, its lang and its direction", async () => {
    const german = (await page('/', { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })).body;
    assert.match(german, /<html lang="de" dir="ltr">/);
    assert.ok(german.includes(shown('de', 'site.searchLabel')), 'the header in German');
    const arabic = (await page('/search', { 'accept-language': 'ar' })).body;
    assert.match(arabic, /<html lang="ar" dir="rtl">/);
    assert.ok(arabic.includes(shown('ar', 'site.allApps')));
    assert.match((await page('/', { 'accept-language': 'pt' })).body, /<html lang="pt-BR" dir="ltr">/);
    assert.match((await page('/', { 'accept-language': 'zh-CN' })).body, /<html lang="zh-CN" dir="ltr">/);
    assert.match(
      (await page('/', { 'accept-language': 'nl, fr;q=0.5' })).body,
      /<html lang="fr"/,
      'Dutch is not shipped: the next language',
    );
    const english = (await page('/', { 'accept-language': 'sv' })).body;
    assert.match(english, /<html lang="en" dir="ltr">/);
    assert.match(english, /Search apps/);
    for (const language of SITE_LANGUAGES)
      assert.match(english, new RegExp(`<option value="${language}" lang="${language.replace('_', '-')}"`));
  });

  test('every page kind of a visitor, and the error pages, speak German', async () => {
    const headers = { 'accept-language': 'de' };
    for (const [url, id] of [
      ['/', 'site.navApps'],
      ['/search?q=x', 'site.sortBy'],
      ['/account/login', 'site.signIn'],
      ['/account/signup', 'site.signUp'],
      ['/account/reset', 'site.resetTitle'],
      ['/upgrade', 'site.planTitle'],
      ['/api/', 'site.tpTitle'],
      ['/apps/nothing_here', 'site.notFoundTitle'],
    ] as const) {
      const body = (await page(url, headers)).body;
      assert.ok(body.includes(shown('de', id)), `${url}: ${id}`);
      assert.match(body, /<html lang="de"/, url);
    }
  });

  test('the switcher: the choice wins over the browser, and a signed-in user gets mails in it', async () => {
    await createUser(server.container, 'greta', 'greta password here', { email: 'greta@example.org' });
    const web = new WebClient(server.app);
    await web.get('/account/login');
    assert.equal(
      (await web.post('/account/login', { username: 'greta', password: 'greta password here', next: '/' })).statusCode,
      303,
    );
    // As the footer's switcher sends it: a navigation from the store's own page.
    const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const asImage = await server.app.inject({
      method: 'GET',
      url: '/language?lang=ja&next=%2F',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    });
    assert.equal(asImage.statusCode, 303);
    assert.equal(
      (await server.container.accounts.store.findUserByUsername('greta'))?.language ?? null,
      null,
      'an embedded request changes no account',
    );
    const chosen = await server.app.inject({
      method: 'GET',
      url: '/language?lang=ar&next=%2Faccount',
      headers: { cookie, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
    });
    assert.equal(chosen.statusCode, 303);
    web.cookies.set('appstore_lang', 'ar');
    const account = await web.get('/account');
    assert.match(account.body, /<html lang="ar" dir="rtl">/);
    assert.ok(account.body.includes(shown('ar', 'site.accountTitle')));
    // The password-reset mail goes to the address, in the language its account chose.
    const anonymous = new WebClient(server.app);
    await anonymous.get('/account/reset');
    await anonymous.post('/account/reset', { email: 'greta@example.org' });
    await server.container.mailQueue.settled();
    const reset = await mail.nextMailTo('greta@example.org');
    assert.equal(reset.subject, CATALOGUES.ar['mail.resetSubject']);
    assert.match(reset.text, /[\u0600-\u06FF]/);
    assert.ok(reset.text.includes(CATALOGUES.ar['mail.signature'] ?? '?'));
    assert.equal(reset.links.length, 1);
  });

  test('a sign-up on a German page gets its confirmation mail in German', async () => {
    const web = new WebClient(server.app);
    web.cookies.set('appstore_lang', 'de');
    const form = await web.get('/account/signup');
    assert.match(form.body, /<html lang="de"/);
    const sent = await web.post('/account/signup', {
      username: 'hanna',
      email: 'hanna@example.org',
      password: 'a long and unusual passphrase',
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.ok(sent.body.includes(shown('de', 'site.checkInboxTitle')));
    await server.container.mailQueue.settled();
    const confirm = await mail.nextMailTo('hanna@example.org');
    assert.equal(confirm.subject, CATALOGUES.de['mail.verifySubject']);
    assert.ok(confirm.text.startsWith('Hallo hanna') || confirm.text.includes('hanna'), confirm.text);
  });

  test('a switcher link from another site changes the cookie only, never the account', async () => {
    await createUser(server.container, 'ivo', 'ivo password is here', { email: 'ivo@example.org' });
    const web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'ivo', password: 'ivo password is here', next: '/' });
    const cross = await server.app.inject({
      method: 'GET',
      url: '/language?lang=ja&next=%2F',
      headers: { cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(cross.statusCode, 303);
    const ivo = await server.container.accounts.store.findUserByUsername('ivo');
    assert.equal(ivo?.language ?? null, null);
  });

  test("a refused form says what was wrong in the page's language: the detail and the field", async () => {
    await createUser(server.container, 'jana', 'jana password here', { email: 'jana@example.org' });
    const web = new WebClient(server.app);
    web.cookies.set('appstore_lang', 'de');
    await web.get('/account/login');
    const refused = await web.post('/account/login', { username: 'jana', password: 'not her password', next: '/' });
    assert.equal(refused.statusCode, 401);
    const german = translateSaid(INVALID_CREDENTIALS, 'de');
    assert.ok(german !== undefined && german !== INVALID_CREDENTIALS.text);
    assert.ok(refused.body.includes(escapeHtml(german)), refused.body);
    assert.ok(!refused.body.includes(escapeHtml(INVALID_CREDENTIALS.text)), 'no English beside it');
    assert.ok(!refused.body.includes(shown('de', 'site.refusedNotAuthenticated')), 'no lead-in: the detail is German');

    // A name that is taken, on an Arabic sign-up page: the field's message and the detail in Arabic.
    const arabic = new WebClient(server.app);
    arabic.cookies.set('appstore_lang', 'ar');
    await arabic.get('/account/signup');
    const taken = await arabic.post('/account/signup', {
      username: 'jana',
      email: 'other@example.org',
      password: 'a long and unusual passphrase',
    });
    assert.equal(taken.statusCode, 409, taken.body);
    const detail = translateSaid(said`The username '${'jana'}' is taken: choose another.`, 'ar');
    const field = translateSaid(said`is taken`, 'ar');
    assert.ok(detail !== undefined && field !== undefined);
    assert.ok(taken.body.includes(escapeHtml(detail)), taken.body);
    assert.match(
      taken.body,
      new RegExp(`<span class="field-error" id="field-username-error">${escapeHtml(field)}</span>`),
    );
    assert.doesNotMatch(
      taken.body,
      /<p lang="en"|class="field-error"[^>]*lang="en"/,
      'nothing English is left on the form',
    );

    const english = new WebClient(server.app);
    await english.get('/account/login');
    const plain = await english.post('/account/login', { username: 'jana', password: 'not her password', next: '/' });
    assert.ok(plain.body.includes(escapeHtml(INVALID_CREDENTIALS.text)), 'an English page shows the detail alone');
  });
});
