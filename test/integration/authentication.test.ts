import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  INVALID_CREDENTIALS as INVALID_CREDENTIALS_SAID,
  INVALID_TOKEN as INVALID_TOKEN_SAID,
} from '../../src/domain/accounts/authenticate.ts';

const INVALID_CREDENTIALS = INVALID_CREDENTIALS_SAID.text;
const INVALID_TOKEN = INVALID_TOKEN_SAID.text;
import { setActive } from '../../src/domain/accounts/manage-users.ts';
import { addWhoamiRoute, basic, createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

const PASSWORD = 'correct horse battery staple';

describe(`authentication (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock();
  let aliceToken = '';
  let address = 0;
  /** Each test gets its own client address, so failure counters of one test do not spill over. */
  const newAddress = (): string => `192.0.2.${++address}`;
  const whoami = (authorization: string | undefined, remoteAddress = newAddress()) =>
    server.app.inject({
      method: 'GET',
      url: '/test/whoami',
      headers: authorization === undefined ? {} : { authorization },
      remoteAddress,
    });

  before(async () => {
    server = await createTestServer({ now: clock.now, configure: addWhoamiRoute });
    const { container } = server;
    await createUser(container, 'alice', PASSWORD);
    await createUser(container, 'bob', null);
    await createUser(container, 'carol', PASSWORD);
    await createUser(container, 'dave', PASSWORD);
    const token = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: basic('alice', PASSWORD) },
    });
    aliceToken = token.json().token;
  });
  after(() => server.close());

  function assert401(response: Awaited<ReturnType<typeof whoami>>, detail: RegExp | string): void {
    assert.equal(response.statusCode, 401, response.body);
    assert.equal(response.headers['www-authenticate'], 'Basic realm="appstore", Token');
    const body = response.json();
    assert.equal(body.code, 'not_authenticated');
    if (typeof detail === 'string') assert.equal(body.detail, detail);
    else assert.match(body.detail, detail);
  }

  test('Basic, Token and Bearer are accepted', async () => {
    assert.match(aliceToken, /^[0-9a-f]{64}$/);
    for (const authorization of [
      basic('alice', PASSWORD),
      `Token ${aliceToken}`,
      `Bearer ${aliceToken}`,
      `token ${aliceToken}`,
    ]) {
      const response = await whoami(authorization);
      assert.equal(response.statusCode, 200, authorization);
      assert.deepEqual(response.json(), { username: 'alice' });
    }
  });

  test('no header', async () =>
    assert401(await whoami(undefined), /credentials were not provided: this route needs Basic or Token/));

  test('malformed headers', async () => {
    assert401(await whoami('Basic'), /^Malformed Authorization header/);
    assert401(await whoami('Token a b'), /^Malformed Authorization header/);
    assert401(await whoami('Negotiate abc'), /^Unsupported authorization scheme 'Negotiate'/);
  });

  test('bad base64, and base64 without a colon', async () => {
    assert401(await whoami('Basic !!!notbase64'), /not base64/);
    assert401(await whoami(`Basic ${Buffer.from('alice').toString('base64')}`), /"username:password"/);
  });

  test('wrong password and unknown user: the same message', async () => {
    const wrong = await whoami(basic('alice', 'wrong'));
    const unknown = await whoami(basic('nobody', 'wrong'));
    assert401(wrong, INVALID_CREDENTIALS);
    assert401(unknown, INVALID_CREDENTIALS);
  });

  test('a password-less account cannot use a password; the message says to use a token', async () => {
    for (const password of ['', 'anything']) assert401(await whoami(basic('bob', password)), INVALID_CREDENTIALS);
    assert.match(INVALID_CREDENTIALS, /use an API token/);
    const login = await server.app.inject({
      method: 'POST',
      url: '/login',
      payload: { username: 'bob', password: 'x' },
      remoteAddress: newAddress(),
    });
    assert401(login, INVALID_CREDENTIALS);
  });

  test('unknown token', async () => assert401(await whoami(`Token ${'0'.repeat(64)}`), INVALID_TOKEN));

  test('a disabled user: refused by password and by token', async () => {
    const token = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic('carol', PASSWORD) },
      })
    ).json().token;
    await setActive('carol', false, TEST_ACTING, server.container.accounts);
    assert401(await whoami(basic('carol', PASSWORD)), /account is disabled/);
    assert401(await whoami(`Token ${token}`), /account is disabled/);
    await setActive('carol', true, TEST_ACTING, server.container.accounts);
    assert.equal((await whoami(`Token ${token}`)).statusCode, 200);
  });

  test('the token of a deleted user', async () => {
    const token = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic('dave', PASSWORD) },
      })
    ).json().token;
    assert.equal((await whoami(`Token ${token}`)).statusCode, 200);
    await server.container.database.db.deleteFrom('users').where('username', '=', 'dave').execute();
    assert401(await whoami(`Token ${token}`), INVALID_TOKEN);
  });

  test('a route names the schemes it accepts', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: `Token ${aliceToken}` },
    });
    assert401(response, /^This route accepts Basic or a session \(POST \/login\) authentication, not Token\.$/);
  });

  test('listings ignore credentials entirely', async () => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/v1/categories.json',
      headers: { authorization: 'Basic !!!' },
    });
    assert.equal(response.statusCode, 200);
  });
});
