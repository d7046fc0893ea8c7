import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

const STRONG = 'correct horse battery staple';
const STRONGER = 'violet tractor nebula quilt';

/** The path of the link in a mail (the host is APPSTORE_PUBLIC_URL's). */
function linkPath(links: readonly string[]): string {
  const [link] = links;
  assert.ok(link !== undefined, 'the mail has a link');
  assert.ok(link.startsWith('https://apps.example.test/'), link);
  return new URL(link).pathname;
}

describe(`accounts on the website (${DIALECT})`, () => {
  let mail: MailServer;
  let server: TestServer;
  let clock: TestClock;
  let web: WebClient;

  before(async () => {
    mail = await startMailServer();
  });
  after(async () => {
    await mail.close();
  });
  beforeEach(async () => {
    await server?.close();
    clock = new TestClock();
    server = await createTestServer({
      env: { APPSTORE_SMTP_URL: mail.url, APPSTORE_PUBLIC_URL: 'https://apps.example.test' },
      now: clock.now,
    });
    web = new WebClient(server.app);
  });
  after(async () => {
    await server.close();
  });

  const userCount = async () => (await server.container.accounts.store.listUsers()).length;

  async function signUp(client: WebClient, username: string, email: string, password = STRONG) {
    await client.get('/account/signup');
    return client.post('/account/signup', { username, email, password });
  }

  /** Sign-up, the mailed link, the confirmation button: a confirmed account. */
  async function confirmedAccount(client: WebClient, username: string, email: string) {
    assert.equal((await signUp(client, username, email)).statusCode, 200);
    const path = linkPath((await mail.nextMailTo(email)).links);
    await client.get(path);
    const confirmed = await client.post(path, {});
    assert.equal(confirmed.statusCode, 200, confirmed.body);
  }

  async function signIn(client: WebClient, username: string, password = STRONG, next = '/account') {
    await client.get(`/account/login?next=${encodeURIComponent(next)}`);
    return client.post('/account/login', { username, password, next });
  }

  test('sign-up mails a link; the account signs in only after following it', async () => {
    const response = await signUp(web, 'carol', 'carol@example.org');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /Check your inbox/);
    const verification = await mail.nextMailTo('carol@example.org');
    assert.equal(verification.subject, 'Confirm your e-mail address');

    const early = await signIn(web, 'carol');
    assert.equal(early.statusCode, 403);
    assert.match(early.body, /Confirm your e-mail address first: a new link is on its way to c…l@example\.org/);
    assert.ok(!web.cookies.has('appstore_session'));
    const resent = await mail.nextMailTo('carol@example.org');

    // A link scanner's GET confirms nothing: the page asks for the button.
    const path = linkPath(resent.links);
    assert.match((await web.get(path)).body, /Confirm my address/);
    assert.equal((await web.get(path)).statusCode, 200);
    const token = web.csrfToken();
    assert.equal((await web.post(path, {})).statusCode, 200);
    assert.match(web.last?.body ?? '', /carol@example\.org is now confirmed/);
    const reused = await web.post(path, {}, token);
    assert.equal(reused.statusCode, 400, 'a link works once');
    assert.match(reused.body, /does not work/);

    const signedIn = await signIn(web, 'carol');
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, '/account');
    assert.ok(web.cookies.has('appstore_session'));
    const account = await web.get('/account');
    assert.equal(account.statusCode, 200);
    assert.match(account.body, /Signed in as carol/);
    assert.equal(account.headers['cache-control'], 'no-store');

    // The audit log: the sign-up by a visitor, then the confirmation by the link's holder.
    const audit = await server.container.audit.find({ user: 'carol', limit: 10 });
    assert.deepEqual(
      audit.map((entry) => [entry.event, entry.actor.kind, entry.actor.name, entry.subjectUser]),
      [
        ['user.created', 'visitor', 'visitor', 'carol'],
        ['user.email_confirmed', 'user', 'carol', 'carol'],
      ],
    );
    assert.ok(audit.every((entry) => entry.address !== null && entry.requestId !== null));
  });

  test("a sign-in's next outside Latin-1 is percent-encoded in the redirect, never a 500", async () => {
    await createUser(server.container, 'nina', STRONG);
    await web.get('/account/login?next=%2Fsearch%3Fq%3D%C4%80');
    const signedIn = await web.post('/account/login', { username: 'nina', password: STRONG, next: '/search?q=\u0100' });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    assert.equal(signedIn.headers.location, '/search?q=%C4%80');
    const again = await web.get('/account/login?next=%2F%C4%80');
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/%C4%80');
  });

  test('a confirmation link stops working after three days', async () => {
    await signUp(web, 'dave', 'dave@example.org');
    const path = linkPath((await mail.nextMailTo('dave@example.org')).links);
    clock.advance(3 * 86_400_000 + 1000);
    const expired = await web.get(path);
    assert.equal(expired.statusCode, 400);
    assert.match(expired.body, /expired/);
  });

  test('refused sign-ups say what is wrong and create nothing', async () => {
    const weak = await signUp(web, 'erin', 'erin@example.org', 'erin12345678');
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /too easy to guess/);
    assert.match(weak.body, /aria-invalid="true"/);
    assert.match(weak.body, /value="erin@example\.org"/, 'what was typed stays, except the password');
    const badName = await signUp(web, 'bad name', 'erin@example.org');
    assert.equal(badName.statusCode, 400);
    assert.match(badName.body, /Invalid username/);
    const badMail = await signUp(web, 'erin', 'not-an-address');
    assert.equal(badMail.statusCode, 400);
    assert.equal(await userCount(), 0);

    await createUser(server.container, 'frank', 'frank pass');
    const taken = await signUp(web, 'frank', 'other@example.org');
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /taken/);
    // The same name in another case is the same name (issue 49).
    const lookalike = await signUp(web, 'Frank', 'another@example.org');
    assert.equal(lookalike.statusCode, 409);
    assert.match(lookalike.body, /taken/);
    assert.equal(await userCount(), 1);
  });

  test('an address that has an account gets the same answer, and its owner a mail', async () => {
    await confirmedAccount(web, 'gina', 'gina@example.org');
    const other = new WebClient(server.app, '10.0.0.2');
    const again = await signUp(other, 'gina2', 'GINA@example.org');
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /Check your inbox/);
    const notice = await mail.nextMailTo('GINA@example.org');
    assert.equal(notice.subject, 'You already have an account');
    // The name was made, as for a free address, but can never be confirmed with gina's address.
    assert.equal(await userCount(), 2);
    const gina2 = await server.container.accounts.store.findUserByUsername('gina2');
    assert.equal(gina2?.emailVerified, false);
    const before = mail.received.length;
    await other.get('/account/login');
    const signIn = await other.post('/account/login', { username: 'gina2', password: STRONG, next: '/' });
    assert.equal(signIn.statusCode, 403);
    await server.container.mailQueue.settled();
    assert.equal(
      mail.received.slice(before).filter((m) => m.to.some((to) => to.toLowerCase() === 'gina@example.org')).length,
      0,
      'gina is never sent a link for gina2',
    );
  });

  test('a name signed up with an address whose account is not confirmed yet is never sent a link: the first account confirms', async () => {
    const first = new WebClient(server.app, '10.0.2.1');
    assert.equal((await signUp(first, 'dupa', 'dup@example.org')).statusCode, 200);
    const firstLink = linkPath((await mail.nextMailTo('dup@example.org')).links);
    const squatter = new WebClient(server.app, '10.0.2.2');
    assert.equal((await signUp(squatter, 'dupb', 'dup@example.org')).statusCode, 200);
    assert.equal((await mail.nextMailTo('dup@example.org')).subject, 'You already have an account');
    // The second name signs in: the same answer as for any unconfirmed account, and no link goes out.
    const before = mail.received.length;
    await squatter.get('/account/login');
    assert.match(
      (await squatter.post('/account/login', { username: 'dupb', password: STRONG, next: '/' })).body,
      /a new link is on its way to d…p@example\.org/,
    );
    await server.container.mailQueue.settled();
    assert.equal(mail.received.length, before, 'no link for dupb');
    await first.get(firstLink);
    assert.equal((await first.post(firstLink, {})).statusCode, 200, 'dupa confirms with its own link');
    assert.equal((await server.container.accounts.store.findUserByUsername('dupb'))?.emailVerified, false);
  });

  test("a second sign-up with the same name answers alike whether the first one's address had an account (no enumeration)", async () => {
    await confirmedAccount(web, 'owner', 'target@example.org');
    const answers: number[] = [];
    for (const [name, address] of [
      ['probe1', 'target@example.org'],
      ['probe2', 'free-address@example.org'],
    ] as const) {
      const prober = new WebClient(server.app, `10.0.1.${answers.length + 1}`);
      assert.equal((await signUp(prober, name, address)).statusCode, 200);
      answers.push((await signUp(prober, name, `fresh-${name}@example.org`)).statusCode);
    }
    assert.deepEqual(answers, [409, 409]);
  });

  test("forms without the CSRF token, or with another browser's, are refused and change nothing", async () => {
    await web.get('/account/signup');
    const missing = await web.post(
      '/account/signup',
      { username: 'hal', email: 'hal@example.org', password: STRONG },
      null,
    );
    assert.equal(missing.statusCode, 403);
    assert.match(missing.body, /security token is missing or wrong/);
    const other = new WebClient(server.app);
    await other.get('/account/signup');
    const foreign = await web.post(
      '/account/signup',
      { username: 'hal', email: 'hal@example.org', password: STRONG },
      other.csrfToken(),
    );
    assert.equal(foreign.statusCode, 403);
    const noCookie = await new WebClient(server.app).post(
      '/account/signup',
      { username: 'hal', email: 'hal@example.org', password: STRONG },
      other.csrfToken(),
    );
    assert.equal(noCookie.statusCode, 403);
    assert.equal(await userCount(), 0);

    await createUser(server.container, 'ivan', STRONG);
    await web.get('/account/login');
    assert.equal(
      (await web.post('/account/login', { username: 'ivan', password: STRONG, next: '/' }, 'wrong')).statusCode,
      403,
    );
    assert.ok(!web.cookies.has('appstore_session'), 'no login CSRF');
  });

  test('sign-in goes back only to a path on this site', async () => {
    await createUser(server.container, 'judy', STRONG);
    for (const [next, expected] of [
      ['/apps/news?x=1', '/apps/news?x=1'],
      ['https://evil.example/', '/'],
      ['//evil.example/', '/'],
      ['/\\evil.example', '/'],
      ['javascript:alert(1)', '/'],
    ] as const) {
      const client = new WebClient(server.app);
      const response = await signIn(client, 'judy', STRONG, next);
      assert.equal(response.statusCode, 303, next);
      assert.equal(response.headers.location, expected, next);
    }
    const wrong = await signIn(new WebClient(server.app), 'judy', 'not the password');
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /Invalid username or password/);
    assert.equal(wrong.headers['www-authenticate'], undefined, 'no Basic dialog in a browser');
  });

  test('sign-in failures are rate-limited like Basic authentication', async () => {
    await createUser(server.container, 'kate', STRONG);
    for (let i = 0; i < 10; i++) assert.equal((await signIn(web, 'kate', `wrong ${i}`)).statusCode, 401);
    const limited = await signIn(web, 'kate', STRONG);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.match(limited.body, /Too many failed sign-ins/);
  });

  test('sign-ups are rate-limited per address; sign-up can be closed', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await signUp(web, `user${i}`, `user${i}@example.org`)).statusCode, 200);
    const limited = await signUp(web, 'user10', 'user10@example.org');
    assert.equal(limited.statusCode, 429);
    assert.equal(await userCount(), 10);

    await server.close();
    server = await createTestServer({
      env: { APPSTORE_SMTP_URL: mail.url, APPSTORE_SIGNUP: 'closed' },
      now: clock.now,
    });
    const closedClient = new WebClient(server.app);
    assert.match((await closedClient.get('/account/signup')).body, /by invitation only/);
    const closed = await closedClient.post(
      '/account/signup',
      { username: 'x', email: 'x@example.org', password: STRONG },
      null,
    );
    assert.equal(closed.statusCode, 403);
    await closedClient.get('/account/login');
    const refused = await closedClient.post('/account/signup', {
      username: 'xavier',
      email: 'x@example.org',
      password: STRONG,
    });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /invitation only/);
    assert.equal(await userCount(), 0);
  });

  test('password reset: the same answer for unknown addresses, a link that works once and expires, sessions end', async () => {
    await confirmedAccount(web, 'liam', 'liam@example.org');
    const elsewhere = new WebClient(server.app, '10.0.0.9');
    assert.equal((await signIn(elsewhere, 'liam')).statusCode, 303);

    const anonymous = new WebClient(server.app);
    await anonymous.get('/account/reset');
    const unknown = await anonymous.post('/account/reset', { email: 'nobody@example.org' });
    await anonymous.get('/account/reset');
    const known = await anonymous.post('/account/reset', { email: 'liam@example.org' });
    assert.equal(unknown.statusCode, 200);
    assert.equal(known.statusCode, 200);
    const strip = (body: string) => body.replace(/name="csrf_token" value="[^"]+"/g, '');
    assert.equal(strip(unknown.body), strip(known.body), 'the same page either way');
    assert.ok(!mail.received.some((m) => m.to.includes('nobody@example.org')));
    const path = linkPath((await mail.nextMailTo('liam@example.org')).links);

    const page = await anonymous.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /For the account liam/);
    const weak = await anonymous.post(path, { password: 'liam1234567' });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /too easy to guess/);
    assert.equal((await anonymous.get(path)).statusCode, 200, 'a refused password leaves the link working');
    const done = await anonymous.post(path, { password: STRONGER });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Password changed/);
    await anonymous.get('/account/reset');
    assert.equal((await anonymous.post(path, { password: STRONGER })).statusCode, 400, 'used once');

    assert.equal((await elsewhere.get('/account')).statusCode, 303, 'the other session ended');
    assert.equal((await signIn(new WebClient(server.app), 'liam', STRONG)).statusCode, 401);
    assert.equal((await signIn(new WebClient(server.app), 'liam', STRONGER)).statusCode, 303);

    // A reset link expires after an hour.
    await anonymous.get('/account/reset');
    await anonymous.post('/account/reset', { email: 'liam@example.org' });
    const late = linkPath((await mail.nextMailTo('liam@example.org')).links);
    clock.advance(3_600_000 + 1);
    assert.equal((await anonymous.get(late)).statusCode, 400);
  });

  test('password resets are limited per address asked for, known or not', async () => {
    const client = new WebClient(server.app);
    for (let i = 0; i < 3; i++) {
      await client.get('/account/reset');
      assert.equal((await client.post('/account/reset', { email: 'nobody@example.org' })).statusCode, 200);
    }
    await client.get('/account/reset');
    const limited = await client.post('/account/reset', { email: 'nobody@example.org' });
    assert.equal(limited.statusCode, 429);
    assert.match(limited.body, /Too many password resets/);
  });

  test('the account page: the API token shown on demand and replaced, as the API does', async () => {
    assert.equal((await web.get('/account')).headers.location, '/account/login?next=%2Faccount');
    await confirmedAccount(web, 'mia', 'mia@example.org');
    await signIn(web, 'mia');
    const account = await web.get('/account');
    assert.doesNotMatch(account.body, /id="token-value"/, 'no token until asked for');
    const shown = await web.post('/account/token', {});
    const token = /id="token-value"[^>]*value="([0-9a-f]{64})"/.exec(shown.body)?.[1];
    assert.ok(token !== undefined);
    const api = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: basic('mia', STRONG) },
    });
    assert.equal(api.json().token, token, 'the same token as POST /api/v1/token');

    const replaced = await web.post('/account/token/new', {});
    const fresh = /id="token-value"[^>]*value="([0-9a-f]{64})"/.exec(replaced.body)?.[1];
    assert.ok(fresh !== undefined && fresh !== token);
    assert.match(replaced.body, /the old one no longer works/);
    const old = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token/new',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(old.statusCode, 401);
    assert.equal((await web.post('/account/token', {}, 'forged')).statusCode, 403);
  });

  test('changing the password ends the other sessions and keeps this one', async () => {
    await confirmedAccount(web, 'noah', 'noah@example.org');
    await signIn(web, 'noah');
    const other = new WebClient(server.app, '10.0.0.3');
    await signIn(other, 'noah');
    await web.get('/account');
    const wrong = await web.post('/account/password', { current_password: 'nope', password: STRONGER });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /current password is not right/);
    await web.get('/account');
    const changed = await web.post('/account/password', { current_password: STRONG, password: STRONGER });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.match(changed.body, /Your password was changed/);
    assert.equal((await web.get('/account')).statusCode, 200, 'this browser stays signed in');
    assert.equal((await other.get('/account')).statusCode, 303, 'the other session ended');
    assert.equal((await signIn(new WebClient(server.app), 'noah', STRONGER)).statusCode, 303);
  });

  test('changing the address takes effect when the new one is confirmed', async () => {
    await confirmedAccount(web, 'olga', 'olga@example.org');
    await signIn(web, 'olga');
    await web.get('/account');
    const sent = await web.post('/account/email', { email: 'olga@new.example', current_password: STRONG });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.match(sent.body, /We have sent a link to o…a@new\.example/);
    assert.equal((await server.container.accounts.store.findUserByUsername('olga'))?.email, 'olga@example.org');
    const path = linkPath((await mail.nextMailTo('olga@new.example')).links);
    await web.get(path);
    assert.equal((await web.post(path, {})).statusCode, 200);
    const user = await server.container.accounts.store.findUserByUsername('olga');
    assert.equal(user?.email, 'olga@new.example');
    assert.equal(user?.emailVerified, true);
  });

  test('deleting the account needs the password (the refusal while owning apps is tested below)', async () => {
    await confirmedAccount(web, 'pete', 'pete@example.org');
    await signIn(web, 'pete');
    await web.get('/account');
    const wrong = await web.post('/account/delete', { current_password: 'nope' });
    assert.equal(wrong.statusCode, 401);
    await web.get('/account');
    const deleted = await web.post('/account/delete', { current_password: STRONG });
    assert.equal(deleted.statusCode, 200);
    assert.match(deleted.body, /Account deleted/);
    assert.equal(await server.container.accounts.store.findUserByUsername('pete'), null);
    assert.ok(!web.cookies.has('appstore_session'));
    const [entry] = await server.container.audit.find({ user: 'pete', limit: 1 });
    assert.deepEqual([entry?.event, entry?.actor.name], ['user.deleted', 'pete']);
  });

  test('signing out ends the session', async () => {
    await createUser(server.container, 'quinn', STRONG);
    await signIn(web, 'quinn');
    const session = web.cookies.get('appstore_session');
    await web.get('/account');
    const out = await web.post('/account/logout', {});
    assert.equal(out.statusCode, 303);
    assert.ok(!web.cookies.has('appstore_session'));
    const replay = await server.app.inject({
      method: 'GET',
      url: '/account',
      headers: { accept: 'text/html', cookie: `appstore_session=${session}` },
    });
    assert.equal(replay.statusCode, 303, 'the old cookie no longer signs in');
  });
});

describe(`rating from the app page, the API page (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let web: WebClient;

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    const token = await userWithToken(server.container, 'owner', STRONG);
    const send = injectSend(server.app);
    assert.equal(await registerFixtureApp(send, token, 'news'), 201);
    const published = await publishFixtureRelease(send, token, files, { id: 'news', version: '2.0.0' });
    assert.equal(published.status, 201, published.text);
    await createUser(server.container, 'rita', STRONG);
    web = new WebClient(server.app);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  async function signIn(client: WebClient, username: string) {
    await client.get('/account/login');
    assert.equal(
      (await client.post('/account/login', { username, password: STRONG, next: '/apps/news' })).statusCode,
      303,
    );
  }

  test('anonymous visitors are asked to sign in; a rating and comment show on the page and in ratings.json', async () => {
    const anonymous = await web.get('/apps/news');
    assert.match(anonymous.body, /Sign in to rate this app/);
    assert.equal((await web.post('/apps/news/rating', { stars: '5' }, null)).statusCode, 403, 'no token, no rating');

    await signIn(web, 'rita');
    await web.get('/apps/news');
    const rated = await web.post('/apps/news/rating', {
      stars: '5',
      comment: 'Great **reader** <script>alert(1)</script>',
      language: 'en',
    });
    assert.equal(rated.statusCode, 303);
    assert.equal(rated.headers.location, '/apps/news?rated=saved#your-rating');
    const page = await web.get('/apps/news?rated=saved');
    assert.match(page.body, /Your rating was saved/);
    assert.match(
      page.body,
      /Great <strong>reader<\/strong> &lt;script&gt;/,
      page.body.slice(page.body.indexOf('id="ratings"'), page.body.indexOf('id="ratings"') + 3000),
    );
    assert.match(page.body, /aria-label="5 out of 5 stars"><\/span> <span class="count">\(1\)/);
    const ratings = (await server.app.inject({ method: 'GET', url: '/api/v1/ratings.json' })).json() as Array<{
      app: string;
      rating: number;
      translations: Record<string, { comment: string }>;
    }>;
    assert.equal(ratings.length, 1);
    assert.equal(ratings[0]?.rating, 1);
    assert.match(ratings[0]?.translations.en?.comment ?? '', /Great \*\*reader\*\*/);

    await web.post('/apps/news/rating', { stars: '3', comment: '', language: 'en' });
    const again = (await server.app.inject({ method: 'GET', url: '/api/v1/ratings.json' })).json() as Array<{
      rating: number;
    }>;
    assert.equal(again[0]?.rating, 0.5, 'edited, through the same use case as the API');

    await web.get('/apps/news');
    const bad = await web.post('/apps/news/rating', { stars: '9' });
    assert.equal(bad.statusCode, 400);
    await web.get('/apps/news');
    assert.equal(
      (await web.post('/apps/news/rating/delete', {})).headers.location,
      '/apps/news?rated=removed#your-rating',
    );
    assert.deepEqual((await server.app.inject({ method: 'GET', url: '/api/v1/ratings.json' })).json(), []);
  });

  test('the owner is told they cannot rate their app, and a forced form is refused', async () => {
    const owner = new WebClient(server.app);
    await signIn(owner, 'owner');
    const page = await owner.get('/apps/news');
    assert.match(page.body, /You maintain this app/);
    await owner.get('/account');
    const forced = await owner.post('/apps/news/rating', { stars: '5' });
    assert.equal(forced.statusCode, 403);
    assert.match(forced.body, /cannot rate it/);
  });

  test('deleting an account that owns apps is refused, naming them', async () => {
    const owner = new WebClient(server.app);
    await signIn(owner, 'owner');
    await owner.get('/account');
    const refused = await owner.post('/account/delete', { current_password: STRONG });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /You own an app \(news\): transfer it/);
    assert.ok((await server.container.accounts.store.findUserByUsername('owner')) !== null);
  });

  test('/api/ and /api/v1/ show the OpenAPI document to a browser, and say where it is to others', async () => {
    for (const url of ['/api/', '/api/v1/', '/api']) {
      const page = await server.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, /<code>\/api\/v1\/apps\/releases<\/code>/);
      assert.match(page.body, /href="\/api\/v1\/openapi\.json"/);
      assert.ok(page.headers['content-security-policy']);
    }
    const json = await server.app.inject({ method: 'GET', url: '/api/v1/' });
    assert.deepEqual(json.json(), { openapi: '/api/v1/openapi.json', documentation: '/api/' });
  });
});
