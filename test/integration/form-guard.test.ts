import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createLink } from '../../src/domain/accounts/account-links.ts';
import { registeredRoutes } from '../../src/http/route-registry.ts';
import { createUser } from '../helpers/accounts.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

const PASSWORD = 'guarded forms password';

/** What each field of any of the website's forms may be sent as: values that would change something. */
const FIELDS = {
  username: 'gus',
  password: 'a brand new strong passphrase',
  current_password: PASSWORD,
  email: 'gus@example.org',
  stars: '5',
  comment: 'forged',
  next: '/',
};

/**
 * Every POST route outside /api/ (the website's forms, sign-in and sign-out), found from the
 * routes the server registered, not from a list kept by hand: posted as a signed-in browser
 * would be made to by another site, without the form token, with another browser's token, and
 * with the right token but `Origin: null`. Each is refused, and no row of any table changes.
 */
describe(`every form is guarded: CSRF (${DIALECT})`, () => {
  let server: TestServer;
  let victim: WebClient;
  let other: WebClient;
  const secrets: Record<string, string> = {};

  before(async () => {
    server = await createTestServer();
    const gus = await createUser(server.container, 'gus', PASSWORD);
    await createUser(server.container, 'olive', PASSWORD);
    secrets['verify'] = await createLink(
      gus.id,
      'verify-email',
      'gus@example.net',
      3_600_000,
      server.container.selfService,
    );
    secrets['reset'] = await createLink(gus.id, 'reset-password', null, 3_600_000, server.container.selfService);
    victim = new WebClient(server.app);
    other = new WebClient(server.app, '127.0.0.2');
    for (const [client, name] of [
      [victim, 'gus'],
      [other, 'olive'],
    ] as const) {
      await client.get('/account/login');
      assert.equal(
        (await client.post('/account/login', { username: name, password: PASSWORD, next: '/account' })).statusCode,
        303,
      );
    }
  });
  after(() => server.close());

  /** Every row of every table, as one digest. */
  async function everything(): Promise<string> {
    const hash = createHash('sha256');
    // This database's tables (on PostgreSQL, of its own schema: the other test files' come and go).
    const query =
      DIALECT === 'postgres'
        ? sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
        : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
    const tables = (await query.execute(server.container.database.db)).rows.map((row) => row.name).sort();
    for (const table of tables) {
      const { rows } = await sql.raw(`select * from ${table}`).execute(server.container.database.db);
      hash.update(`${table}\n${JSON.stringify(rows.map((row) => JSON.stringify(row)).sort())}\n`);
    }
    return hash.digest('hex');
  }

  const concrete = (url: string): string =>
    url
      .replace(':appId', 'news')
      .replace(':secret', url.includes('verify') ? (secrets['verify'] ?? '') : (secrets['reset'] ?? ''));

  test("each POST route outside /api/ refuses a forged post (no token, another browser's token, Origin: null) and changes nothing", async () => {
    const routes = registeredRoutes(server.app).filter(
      (route) => route.method === 'POST' && !route.url.startsWith('/api/'),
    );
    assert.ok(routes.length >= 15, `found ${routes.length} POST routes: ${routes.map((r) => r.url).join(', ')}`);
    await victim.get('/account');
    const victimToken = victim.csrfToken();
    await other.get('/account');
    const othersToken = other.csrfToken();
    const before = await everything();
    for (const { url } of routes) {
      const path = concrete(url);
      for (const [how, token, headers] of [
        ['without a token', null, {}],
        ["with another browser's token", othersToken, {}],
        ['from Origin: null', victimToken, { origin: 'null' }],
        ['from another site', victimToken, { origin: 'https://evil.example' }],
        // The same host and port over another scheme is another origin (issue 49).
        [
          'from https on the same host and port',
          victimToken,
          { host: 'store.test:8080', origin: 'https://store.test:8080' },
        ],
      ] as const) {
        const response = await victim.post(path, FIELDS, token, headers);
        assert.equal(
          response.statusCode,
          403,
          `POST ${path} ${how}: ${response.statusCode} ${response.body.slice(0, 200)}`,
        );
        assert.match(response.body, /did not come from this site|Cross-site request refused/, `POST ${path} ${how}`);
      }
    }
    assert.equal(await everything(), before, 'no row of any table changed');
    // The same browser with its own token gets through (the guard is not refusing everything).
    assert.equal((await victim.post('/account/token', {}, victimToken)).statusCode, 200);
    // Its own origin, the default port written or not.
    assert.equal(
      (await victim.post('/account/token', {}, victimToken, { origin: 'http://localhost' })).statusCode,
      200,
    );
    assert.equal(
      (await victim.post('/account/token', {}, victimToken, { origin: 'http://localhost:80' })).statusCode,
      200,
    );
    assert.equal(
      (
        await victim.post('/account/token', {}, victimToken, {
          host: 'store.test:8080',
          origin: 'http://store.test:8080',
        })
      ).statusCode,
      200,
    );
  });
});
