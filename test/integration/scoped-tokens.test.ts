import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lookForNotifications } from '../../src/domain/notifications/notification-look.ts';
import { TOKEN_SCOPES } from '../../src/domain/accounts/token-scopes.ts';
import type { TokenScope } from '../../src/domain/accounts/token-scopes.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { readCert, certFile } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import {
  importTestCategories,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
} from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { WebClient } from '../helpers/web-client.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'alice password for tokens';

/**
 * Scoped tokens (issue 53 §3): many named tokens with scopes, apps and an expiry; every API route
 * refuses a token without its scope (403, the scope named), an expired token (401) and a token
 * for another app (403); a token revokes itself; the seed's token routes are unchanged.
 */
describe(`scoped tokens (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let mail: MailServer;
  let send: Send;
  const clock = new TestClock(new Date().toISOString());
  const alice = basic('alice', PASSWORD);

  const make = async (
    body: { name: string; scopes: string[]; apps?: string[]; expiresInDays?: number },
    authorization = alice,
  ) => send('POST', '/api/v1/tokens', { headers: { authorization }, payload: body });
  const tokenWith = async (scopes: readonly string[], apps?: string[]): Promise<string> => {
    const answer = await make({ name: `t-${scopes.join('-')}`, scopes: [...scopes], ...(apps ? { apps } : {}) });
    assert.equal(answer.status, 201, answer.text);
    return answer.json<{ token: string }>().token;
  };

  before(async () => {
    files = await startArchiveServer();
    mail = await startMailServer();
    server = await createTestServer({
      now: clock.now,
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_SMTP_URL: mail.url,
      },
      downloadCa: [TEST_TLS_CA],
    });
    send = injectSend(server.app);
    await importTestCategories(server.container);
    await createUser(server.container, 'alice', PASSWORD, { email: 'alice@example.org' });
    await createUser(server.container, 'bob', 'bob password for tokens');
    const full = await send('POST', '/api/v1/token', { headers: { authorization: alice } });
    await registerFixtureApp(send, full.json<{ token: string }>().token, 'news');
  });
  after(async () => {
    await server.close();
    await files.close();
    await mail.close();
  });

  test('made with Basic: the text once, with a prefix and checksum; listed without it, with its last use', async () => {
    const made = await make({ name: 'ci', scopes: ['release:publish'], apps: ['news'] });
    assert.equal(made.status, 201, made.text);
    const body = made.json<{ id: number; token: string; expiresAt: string; apps: string[]; scopes: string[] }>();
    assert.match(body.token, /^apst_[0-9A-Za-z]{46}$/);
    assert.deepEqual(body.scopes, ['release:publish']);
    assert.deepEqual(body.apps, ['news']);
    const days = (Date.parse(body.expiresAt) - clock.now().getTime()) / 86_400_000;
    assert.equal(Math.round(days), 90, 'ninety days by default');
    assert.equal(made.headers['cache-control'], 'no-store');

    const listed = await send('GET', '/api/v1/tokens', { headers: { authorization: alice } });
    const entry = listed.json<Array<Record<string, unknown>>>().find((t) => t.id === body.id);
    assert.ok(entry !== undefined);
    assert.equal(entry.lastUsedAt, null);
    assert.ok(!listed.text.includes(body.token), 'the text is never listed again');
    const stored = await server.container.database.db.selectFrom('access_tokens').selectAll().execute();
    assert.ok(!JSON.stringify(stored).includes(body.token), 'the database holds only its keyed hash');

    const used = await publishFixtureRelease(send, body.token, files, { id: 'news', version: '1.0.0' });
    assert.equal(used.status, 201, used.text);
    const after = await send('GET', '/api/v1/tokens', { headers: { authorization: alice } });
    assert.equal(
      after.json<Array<Record<string, unknown>>>().find((t) => t.id === body.id)?.lastUsedAt,
      clock.now().toISOString(),
    );
    const audit = await server.container.audit.find({ event: 'release.published', limit: 1 });
    assert.match(String(audit[0]?.details.via), /^token #\d+ 'ci'$/);
  });

  test('bad requests are refused with the field named, and change nothing', async () => {
    const before = (await send('GET', '/api/v1/tokens', { headers: { authorization: alice } })).json<unknown[]>()
      .length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', scopes: ['release:everything'] }, 'scopes'],
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: '  ', scopes: ['release:publish'] }, 'name'],
      [{ name: 'x', scopes: ['release:publish'], apps: ['Not An App'] }, 'apps'],
      [{ name: 'x', scopes: ['release:publish'], expiresInDays: 400 }, 'expiresInDays'],
      [{ name: 'x', scopes: ['release:publish'], apps: [] }, 'apps'],
    ];
    for (const [payload, field] of cases) {
      const answer = await send('POST', '/api/v1/tokens', { headers: { authorization: alice }, payload });
      assert.equal(answer.status, 400, answer.text);
      assert.ok(JSON.stringify(answer.json()).includes(field), `${answer.text} names ${field}`);
    }
    const after = (await send('GET', '/api/v1/tokens', { headers: { authorization: alice } })).json<unknown[]>().length;
    assert.equal(after, before);
  });

  test('every API route refuses a token without its scope, naming the scope', async () => {
    const routes: Array<{ method: string; url: string; scope: TokenScope | 'full'; payload?: unknown }> = [
      {
        method: 'POST',
        url: '/api/v1/apps/releases',
        scope: 'release:publish',
        payload: { download: 'https://x/a.tar.gz', signature: 'x' },
      },
      { method: 'DELETE', url: '/api/v1/apps/news/releases/1.0.0', scope: 'release:delete' },
      { method: 'DELETE', url: '/api/v1/apps/news/releases/nightly/1.0.0', scope: 'release:delete' },
      {
        method: 'POST',
        url: '/api/v1/apps',
        scope: 'app:register',
        payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
      },
      { method: 'DELETE', url: '/api/v1/apps/news', scope: 'app:delete' },
      { method: 'GET', url: '/api/v1/apps/news/downloads', scope: 'app:downloads' },
      { method: 'POST', url: '/api/v1/apps/news/ratings', scope: 'rating:write', payload: { rating: 1 } },
      { method: 'DELETE', url: '/api/v1/apps/news/ratings', scope: 'rating:write' },
      { method: 'GET', url: '/api/v1/tokens', scope: 'token:manage' },
      {
        method: 'POST',
        url: '/api/v1/tokens',
        scope: 'token:manage',
        payload: { name: 'x', scopes: ['release:publish'] },
      },
      { method: 'DELETE', url: '/api/v1/tokens', scope: 'token:manage' },
      { method: 'DELETE', url: '/api/v1/tokens/1', scope: 'token:manage' },
      { method: 'POST', url: '/api/v1/token/new', scope: 'full' },
    ];
    const tokens = new Map<string, string>();
    for (const route of routes) {
      const others = TOKEN_SCOPES.filter((scope) => scope !== route.scope);
      const token = tokens.get(route.scope) ?? (await tokenWith(others));
      tokens.set(route.scope, token);
      const answer = await send(route.method, route.url, {
        headers: { authorization: `Token ${token}` },
        ...(route.payload === undefined ? {} : { payload: route.payload }),
      });
      assert.equal(answer.status, 403, `${route.method} ${route.url}: ${answer.text}`);
      const body = answer.json<{ code: string; detail: string }>();
      assert.equal(body.code, 'insufficient_scope');
      if (route.scope === 'full') assert.match(body.detail, /full rights/);
      else assert.ok(body.detail.includes(`'${route.scope}'`), body.detail);
    }
    // And each route with a token of each single scope it does not need.
    const single = new Map<string, string>();
    for (const scope of TOKEN_SCOPES) single.set(scope, await tokenWith([scope]));
    for (const route of routes) {
      for (const [scope, token] of single) {
        if (scope === route.scope) continue;
        const answer = await send(route.method, route.url, {
          headers: { authorization: `Token ${token}` },
          ...(route.payload === undefined ? {} : { payload: route.payload }),
        });
        assert.equal(answer.status, 403, `${route.method} ${route.url} with ${scope}: ${answer.text}`);
        const detail = answer.json<{ detail: string }>().detail;
        assert.ok(route.scope === 'full' || detail.includes(`'${route.scope}'`), detail);
      }
    }
    // The seed's routes take no scoped token at all where they never took a token.
    const token = await tokenWith(TOKEN_SCOPES);
    const seed = await send('POST', '/api/v1/token', { headers: { authorization: `Token ${token}` } });
    assert.equal(seed.status, 401, seed.text);
  });

  test('a token for other apps is refused (403), and cannot make a wider token', async () => {
    const token = await tokenWith(TOKEN_SCOPES, ['notes']);
    const downloads = await send('GET', '/api/v1/apps/news/downloads', {
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(downloads.status, 403, downloads.text);
    assert.match(downloads.json<{ detail: string }>().detail, /only on the app notes, not on news/);
    const publish = await publishFixtureRelease(send, token, files, { id: 'news', version: '1.0.1' });
    assert.equal(publish.status, 403, publish.text);
    assert.equal(publish.json<{ code: string }>().code, 'insufficient_scope');

    const wider = await make({ name: 'wider', scopes: ['release:publish'] }, `Token ${token}`);
    assert.equal(wider.status, 403, wider.text);
    const narrow = await tokenWith(['token:manage']);
    const more = await make({ name: 'more', scopes: ['app:delete'] }, `Token ${narrow}`);
    assert.equal(more.status, 403, more.text);
    assert.ok(more.json<{ detail: string }>().detail.includes("'app:delete'"));
    const same = await make({ name: 'same', scopes: ['token:manage'], expiresInDays: 30 }, `Token ${narrow}`);
    assert.equal(same.status, 201, same.text);

    // A token for one app manages only tokens within its limits: it sees and revokes no others.
    const forNotes = await tokenWith(['token:manage', 'app:downloads'], ['notes']);
    const inside = (
      await make({ name: 'inside', scopes: ['app:downloads'], apps: ['notes'] }, `Token ${forNotes}`)
    ).json<{
      id: number;
    }>();
    const listed = (await send('GET', '/api/v1/tokens', { headers: { authorization: `Token ${forNotes}` } })).json<
      Array<{ id: number; apps: string[] | null }>
    >();
    assert.ok(
      listed.length > 0 && listed.every((t) => t.apps !== null && t.apps.every((a) => a === 'notes')),
      JSON.stringify(listed),
    );
    const wide = (await send('GET', '/api/v1/tokens', { headers: { authorization: alice } })).json<
      Array<{ id: number; apps: string[] | null }>
    >();
    const outside = wide.find((t) => t.apps === null);
    assert.ok(outside !== undefined);
    const refusedRevoke = await send('DELETE', `/api/v1/tokens/${outside.id}`, {
      headers: { authorization: `Token ${forNotes}` },
    });
    assert.equal(refusedRevoke.status, 403, refusedRevoke.text);
    const unscoped = (await send('POST', '/api/v1/token', { headers: { authorization: alice } })).json<{
      token: string;
    }>().token;
    const all = await send('DELETE', '/api/v1/tokens', { headers: { authorization: `Token ${forNotes}` } });
    assert.equal(all.status, 200, all.text);
    assert.ok(all.json<{ revoked: number }>().revoked >= 1);
    assert.equal(
      (await send('POST', '/api/v1/token/new', { headers: { authorization: `Token ${unscoped}` } })).status,
      200,
      'the unscoped token survives',
    );
    const remaining = (await send('GET', '/api/v1/tokens', { headers: { authorization: alice } })).json<
      Array<{ id: number }>
    >();
    assert.ok(
      remaining.some((t) => t.id === outside.id),
      'tokens outside its limits survive',
    );
    assert.ok(!remaining.some((t) => t.id === inside.id));
  });

  test('an expired token gets 401 saying so; the owner is told by mail a week before', async () => {
    const made = await make({ name: 'short', scopes: ['app:downloads'], expiresInDays: 3 });
    const token = made.json<{ token: string }>().token;
    const ok = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
    assert.equal(ok.status, 200, ok.text);

    const look = await lookForNotifications(server.container.notificationLook);
    assert.ok(look.tokens >= 1, JSON.stringify(look));
    let warned = await mail.nextMailTo('alice@example.org');
    // Earlier tests' refused publishes were mailed too.
    while (warned.subject.startsWith('A publish')) warned = await mail.nextMailTo('alice@example.org');
    assert.match(warned.subject, /^Your token “.+” expires on \d{4}-\d\d-\d\d$/);
    assert.equal((await lookForNotifications(server.container.notificationLook)).tokens, 0, 'once');

    clock.advance(3 * 86_400_000 + 1000);
    const expired = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
    assert.equal(expired.status, 401, expired.text);
    assert.match(expired.json<{ detail: string }>().detail, /The token 'short' expired on/);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const noise = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${forged}` } });
    assert.equal(noise.status, 401, noise.text);
  });

  test('a token revokes itself; the unscoped one too, and POST /api/v1/token makes a new one', async () => {
    const token = await tokenWith(['app:downloads']);
    const gone = await send('DELETE', '/api/v1/token', { headers: { authorization: `Token ${token}` } });
    assert.equal(gone.status, 204, gone.text);
    const again = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
    assert.equal(again.status, 401);

    const unscoped = (await send('POST', '/api/v1/token', { headers: { authorization: alice } })).json<{
      token: string;
    }>().token;
    assert.equal(
      (await send('DELETE', '/api/v1/token', { headers: { authorization: `Token ${unscoped}` } })).status,
      204,
    );
    assert.equal(
      (await send('POST', '/api/v1/token/new', { headers: { authorization: `Token ${unscoped}` } })).status,
      401,
    );
    const fresh = (await send('POST', '/api/v1/token', { headers: { authorization: alice } })).json<{ token: string }>()
      .token;
    assert.notEqual(fresh, unscoped);
    assert.match(fresh, /^[0-9a-f]{64}$/);
    assert.equal(
      (await send('DELETE', '/api/v1/token', { headers: { authorization: alice } })).status,
      401,
      'Basic is not a token',
    );
  });

  test('one token is revoked by id (only the owner’s); all of them at once, the unscoped too', async () => {
    const made = (await make({ name: 'one', scopes: ['app:downloads'] })).json<{ id: number; token: string }>();
    const bob = basic('bob', 'bob password for tokens');
    assert.equal((await send('DELETE', `/api/v1/tokens/${made.id}`, { headers: { authorization: bob } })).status, 404);
    assert.equal(
      (await send('DELETE', `/api/v1/tokens/${made.id}`, { headers: { authorization: alice } })).status,
      204,
    );
    assert.equal(
      (await send('DELETE', `/api/v1/tokens/${made.id}`, { headers: { authorization: alice } })).status,
      404,
    );

    const kept = await tokenWith(['app:downloads']);
    const unscoped = (await send('POST', '/api/v1/token', { headers: { authorization: alice } })).json<{
      token: string;
    }>().token;
    const all = await send('DELETE', '/api/v1/tokens', { headers: { authorization: alice } });
    assert.equal(all.status, 200, all.text);
    assert.ok(all.json<{ revoked: number }>().revoked >= 2);
    for (const token of [kept, unscoped]) {
      const answer = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
      assert.equal(answer.status, 401, answer.text);
    }
    assert.deepEqual((await send('GET', '/api/v1/tokens', { headers: { authorization: alice } })).json(), []);
  });

  test('the account page makes a token (shown once), lists it, and revokes it', async () => {
    const web = new WebClient(server.app);
    await web.get('/account/login');
    const signedIn = await web.post('/account/login', {
      username: 'alice',
      password: PASSWORD,
      next: '/account/tokens',
    });
    assert.equal(signedIn.statusCode, 303);
    const page = await web.get('/account/tokens');
    assert.equal(page.statusCode, 200);
    const refused = await web.post('/account/tokens', {
      name: 'page',
      'scope-app:downloads': 'on',
      apps: 'Not-An-App',
      days: '',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /is not an app id/);
    const made = await web.post('/account/tokens', {
      name: 'page token',
      'scope-app:downloads': 'on',
      apps: 'news',
      days: '10',
    });
    assert.equal(made.statusCode, 200, made.body);
    const token = /value="(apst_[0-9A-Za-z]{46})"/.exec(made.body)?.[1];
    assert.ok(token !== undefined, 'the token is shown');
    assert.equal(made.headers['cache-control'], 'no-store');
    const used = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
    assert.equal(used.status, 200, used.text);
    const listed = await web.get('/account/tokens');
    assert.match(listed.body, /page token/);
    assert.ok(!listed.body.includes(token), 'never shown again');
    const id = /action="\/account\/tokens\/(\d+)\/revoke"/.exec(listed.body)?.[1];
    const revoked = await web.post(`/account/tokens/${id}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    assert.match((await web.get('/account/tokens?done=revoked')).body, /The token was revoked/);
    const after = await send('GET', '/api/v1/apps/news/downloads', { headers: { authorization: `Token ${token}` } });
    assert.equal(after.status, 401);
  });
});
