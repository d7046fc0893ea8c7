import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SESSION_LIFETIME_MS } from '../../src/domain/accounts/sessions.ts';
import { formatTimestamp } from '../../src/domain/timestamps.ts';
import { addWhoamiRoute, basic, createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'pa55 w0rd';

describe(`when a token was last used (${DIALECT})`, () => {
  test('recorded on use, at most once a minute (the account page shows it)', async () => {
    const clock = new TestClock();
    const server = await createTestServer({ configure: addWhoamiRoute, now: clock.now });
    try {
      await createUser(server.container, 'erin', PASSWORD);
      const token = (
        await server.app.inject({
          method: 'POST',
          url: '/api/v1/token',
          headers: { authorization: basic('erin', PASSWORD) },
        })
      ).json().token as string;
      const lastUsed = async () =>
        (await server.container.database.db.selectFrom('api_tokens').select('last_used_at').executeTakeFirstOrThrow())
          .last_used_at;
      assert.equal(await lastUsed(), null, 'not used yet');
      const use = () =>
        server.app.inject({ method: 'GET', url: '/test/whoami', headers: { authorization: `Token ${token}` } });
      assert.equal((await use()).statusCode, 200);
      const first = await lastUsed();
      assert.equal(first, formatTimestamp(clock.now()));
      clock.advance(30_000);
      await use();
      assert.equal(await lastUsed(), first, 'within a minute: no write');
      clock.advance(31_000);
      await use();
      assert.equal(await lastUsed(), formatTimestamp(clock.now()));
    } finally {
      await server.close();
    }
  });
});

describe(`API tokens (${DIALECT})`, () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer({ configure: addWhoamiRoute });
    await createUser(server.container, 'alice', PASSWORD);
  });
  after(() => server.close());

  const post = (url: string, authorization: string, payload?: string) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: { authorization, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      payload,
    });
  const whoami = (authorization: string) =>
    server.app.inject({ method: 'GET', url: '/test/whoami', headers: { authorization } });

  test('POST /api/v1/token returns the same token twice (created on first use)', async () => {
    const first = await post('/api/v1/token', basic('alice', PASSWORD));
    assert.equal(first.statusCode, 200);
    const second = await post('/api/v1/token', basic('alice', PASSWORD), '');
    assert.equal(second.statusCode, 200, 'an empty JSON body is accepted');
    assert.equal(first.json().token, second.json().token);
    assert.equal((await post('/api/v1/token/', basic('alice', PASSWORD), '{}')).json().token, first.json().token);
  });

  test('POST /api/v1/token/new replaces it: the old token fails at once, the new one works', async () => {
    const old = (await post('/api/v1/token', basic('alice', PASSWORD))).json().token;
    const fresh = await post('/api/v1/token/new', `Token ${old}`);
    assert.equal(fresh.statusCode, 200);
    const token = fresh.json().token;
    assert.notEqual(token, old);
    assert.equal((await whoami(`Token ${old}`)).statusCode, 401);
    assert.equal((await whoami(`Token ${token}`)).statusCode, 200);
    assert.equal(
      (await post('/api/v1/token', basic('alice', PASSWORD))).json().token,
      token,
      'get-or-create returns the new one',
    );
    const viaBasic = await post('/api/v1/token/new', basic('alice', PASSWORD));
    assert.equal(viaBasic.statusCode, 200);
    assert.equal((await whoami(`Token ${token}`)).statusCode, 401);
  });

  test('concurrent first requests agree on one token', async () => {
    await createUser(server.container, 'erin', PASSWORD);
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => post('/api/v1/token', basic('erin', PASSWORD))),
    );
    const tokens = new Set(responses.map((r) => r.json().token));
    assert.equal(tokens.size, 1);
  });

  test('the token routes refuse other methods with 405', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/v1/token' });
    assert.equal(response.statusCode, 405);
    // POST gets or makes the token (the seed's route); DELETE revokes the token it comes with (issue 53).
    assert.equal(response.headers.allow, 'POST, DELETE');
  });
});

describe(`sessions (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock();
  before(async () => {
    server = await createTestServer({ now: clock.now, env: { APPSTORE_TRUST_PROXY: '1' } });
    await createUser(server.container, 'alice', PASSWORD);
  });
  after(() => server.close());

  const cookiesOf = (setCookie: string | string[] | undefined): string[] =>
    Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie];
  async function login(
    payload: unknown = { username: 'alice', password: PASSWORD },
    headers: Record<string, string> = {},
  ) {
    const response = await server.app.inject({ method: 'POST', url: '/login', payload: payload as object, headers });
    const cookies = cookiesOf(response.headers['set-cookie']);
    const session = cookies.find((c) => c.startsWith('appstore_session='))?.split(';')[0] ?? '';
    return {
      response,
      cookies,
      cookie: session,
      csrf: response.statusCode === 200 ? (response.json().csrfToken as string) : '',
    };
  }
  const tokenWithSession = (cookie: string, csrf?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { cookie, ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) },
    });

  test('login (JSON) sets an HttpOnly, SameSite session cookie; Secure only over HTTPS', async () => {
    const { response, cookies } = await login();
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().username, 'alice');
    const session = cookies.find((c) => c.startsWith('appstore_session='));
    assert.ok(session);
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.doesNotMatch(session, /Secure/);
    const https = await login(undefined, { 'x-forwarded-proto': 'https' });
    assert.match(https.cookies.find((c) => c.startsWith('appstore_session=')) ?? '', /; Secure/);
  });

  test('login as a form works too, with the form token of a page of the site (login CSRF); a wrong password is 401', async () => {
    const page = await server.app.inject({ method: 'GET', url: '/account/login', headers: { accept: 'text/html' } });
    const formCookie = page.cookies.find((c) => c.name === 'appstore_form')?.value ?? '';
    const token = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const post = (body: string, cookie = `appstore_form=${formCookie}`) =>
      server.app.inject({
        method: 'POST',
        url: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        payload: body,
      });
    const credentials = `username=alice&password=${encodeURIComponent(PASSWORD)}`;
    const withoutToken = await post(credentials);
    assert.equal(withoutToken.statusCode, 403);
    assert.equal(withoutToken.json().code, 'csrf_failed');
    assert.equal(cookiesOf(withoutToken.headers['set-cookie']).length, 0, 'no session');
    assert.equal((await post(`${credentials}&csrf_token=${token}`, 'appstore_form=another-browser')).statusCode, 403);
    const form = await post(`${credentials}&csrf_token=${token}`);
    assert.equal(form.statusCode, 200, form.body);
    const wrong = await login({ username: 'alice', password: 'nope' });
    assert.equal(wrong.response.statusCode, 401);
    assert.equal(wrong.cookies.length, 0);
  });

  test('a session gets the token with its CSRF token; without it or with a wrong one: 403', async () => {
    const { cookie, csrf } = await login();
    const ok = await tokenWithSession(cookie, csrf);
    assert.equal(ok.statusCode, 200);
    assert.match(ok.json().token, /^[0-9a-f]{64}$/);
    for (const bad of [undefined, '', 'x'.repeat(43)]) {
      const refused = await tokenWithSession(cookie, bad);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().code, 'csrf_failed');
    }
  });

  test('a session does not authenticate routes that take Basic or Token only', async () => {
    const { cookie, csrf } = await login();
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token/new',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    assert.equal(response.statusCode, 401);
  });

  test('each cookie is set once: on login, on a login over an existing session, and on logout', async () => {
    const names = (cookies: string[]) => cookies.map((c) => c.split('=')[0]).sort();
    const first = await login();
    assert.deepEqual(names(first.cookies), ['appstore_csrf', 'appstore_session']);
    const again = await login(undefined, { cookie: first.cookie });
    assert.deepEqual(names(again.cookies), ['appstore_csrf', 'appstore_session']);
    const out = await server.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie: again.cookie, 'x-csrf-token': again.csrf },
    });
    assert.deepEqual(names(cookiesOf(out.headers['set-cookie'])), ['appstore_csrf', 'appstore_session']);
  });

  test('cross-site login is refused: another origin, Origin: null (a sandboxed frame, a no-referrer page), Sec-Fetch-Site: cross-site', async () => {
    const forged: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of forged) {
      const { response, cookies } = await login(undefined, headers);
      assert.equal(response.statusCode, 403, JSON.stringify(headers));
      assert.equal(response.json().code, 'csrf_failed');
      assert.equal(cookies.length, 0);
    }
    assert.equal((await login(undefined, { origin: 'http://localhost:80' })).response.statusCode, 200, 'this site');
  });

  test('logout needs the CSRF token, ends the session and clears the cookies', async () => {
    const { cookie, csrf } = await login();
    const refused = await server.app.inject({ method: 'POST', url: '/logout', headers: { cookie } });
    assert.equal(refused.statusCode, 403);
    const out = await server.app.inject({ method: 'POST', url: '/logout', headers: { cookie, 'x-csrf-token': csrf } });
    assert.equal(out.statusCode, 204);
    assert.ok(
      cookiesOf(out.headers['set-cookie']).some((c) => c.startsWith('appstore_session=;') && c.includes('Max-Age=0')),
    );
    const after = await tokenWithSession(cookie, csrf);
    assert.equal(after.statusCode, 401);
    assert.match(after.json().detail, /session has expired or ended/);
  });

  test('sessions are stored server-side: they survive a restart, and expire', async () => {
    const { cookie, csrf } = await login();
    const restarted = await createTestServer({ now: clock.now, database: server.database });
    const response = await restarted.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    assert.equal(response.statusCode, 200);
    await restarted.app.close();
    clock.advance(SESSION_LIFETIME_MS + 1000);
    assert.equal((await tokenWithSession(cookie, csrf)).statusCode, 401);
  });
});
