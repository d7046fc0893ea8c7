import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { DEFAULT_SIGN_IN_LIMITS, RATE_LIMITS } from '../../src/domain/rate-limit.ts';
import { toUser } from '../../src/domain/accounts/user.ts';
import { addWhoamiRoute, basic, createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

const PASSWORD = 'secret-enough';

describe(`rate limits (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock();
  before(async () => {
    server = await createTestServer({ now: clock.now, configure: addWhoamiRoute });
    await createUser(server.container, 'alice', PASSWORD);
    for (const name of ['bob', 'carol', 'dave', 'erin']) await createUser(server.container, name, PASSWORD);
  });
  after(() => server.close());

  const requireUserByName = async (name: string) => {
    const record = await server.container.accounts.store.findUserByUsername(name);
    assert.ok(record !== null);
    return toUser(record);
  };
  const whoami = (authorization: string, remoteAddress: string) =>
    server.app.inject({ method: 'GET', url: '/test/whoami', headers: { authorization }, remoteAddress });

  const LIMITS = DEFAULT_SIGN_IN_LIMITS;

  test('failed sign-ins for one username from one address: 429 with Retry-After there, even for the right password; released after it', async () => {
    const address = '198.51.100.1';
    for (let i = 0; i < LIMITS.perUserAndAddress; i++)
      assert.equal((await whoami(basic('alice', 'wrong'), address)).statusCode, 401);
    const limited = await whoami(basic('alice', PASSWORD), address);
    assert.equal(limited.statusCode, 429, 'the right password waits too: otherwise the limit would not stop guessing');
    assert.equal(limited.json().code, 'rate_limited');
    assert.match(limited.json().detail, /for this user from your address: at most 10 in 15 minutes/);
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= LIMITS.windowMs / 1000, `Retry-After ${retryAfter}`);
    assert.equal(
      (await whoami(basic('alice', PASSWORD), '198.51.100.2')).statusCode,
      200,
      'the same user from another address is not affected',
    );
    assert.equal(
      (await whoami(basic('bob', PASSWORD), address)).statusCode,
      200,
      'another user at the same address is not affected',
    );
    clock.advance(retryAfter * 1000);
    assert.equal((await whoami(basic('alice', PASSWORD), address)).statusCode, 200, 'released after Retry-After');
  });

  test('guessing one username from many addresses: refused from new addresses, never from one the user signed in from', async () => {
    clock.advance(LIMITS.windowMs);
    assert.equal(
      (await whoami(basic('carol', PASSWORD), '192.0.2.1')).statusCode,
      200,
      'carol signs in from her office',
    );
    for (let i = 0; i < LIMITS.perUser; i++)
      assert.equal((await whoami(basic('carol', 'wrong'), `198.18.${i}.1`)).statusCode, 401);
    const limited = await whoami(basic('carol', PASSWORD), '198.18.200.1');
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /Too many failed sign-ins for this user: at most 50/);
    assert.equal(
      (await whoami(basic('carol', PASSWORD), '192.0.2.1')).statusCode,
      200,
      'her own address is not locked by others',
    );
  });

  test('many failed sign-ins from one address (a CI runner, a company NAT): tokens and known users still pass', async () => {
    clock.advance(LIMITS.windowMs);
    const shared = '203.0.113.7';
    assert.equal(
      (await whoami(basic('dave', PASSWORD), shared)).statusCode,
      200,
      'dave has signed in from the shared address before',
    );
    const token = await getOrCreateToken(await requireUserByName('erin'), TEST_ACTING, server.container.accounts);
    for (let i = 0; i < LIMITS.perAddress; i++)
      assert.equal((await whoami(basic(`user${i}`, 'x'), shared)).statusCode, 401);
    const limited = await whoami(basic('bob', PASSWORD), shared);
    assert.equal(limited.statusCode, 429, 'a username never signed in from here is slowed: password spraying');
    assert.match(limited.json().detail, /from your address: at most 50/);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await whoami(`Token ${token}`, shared)).statusCode, 200, 'a valid token is never refused');
    assert.equal(
      (await whoami(basic('dave', PASSWORD), shared)).statusCode,
      200,
      'a user known at this address signs in',
    );
    assert.equal(
      (await whoami(basic('bob', PASSWORD), '203.0.113.8')).statusCode,
      200,
      'other addresses are not affected',
    );
    const listing = await server.app.inject({ method: 'GET', url: '/api/v1/categories.json', remoteAddress: shared });
    assert.equal(listing.statusCode, 200, 'listings are never rate-limited');
    clock.advance(LIMITS.windowMs);
    assert.equal((await whoami(basic('bob', PASSWORD), shared)).statusCode, 200);
  });

  test('invalid tokens from one address: 429 once over the limit; a valid token from there still passes', async () => {
    const address = '203.0.113.50';
    const token = await getOrCreateToken(await requireUserByName('erin'), TEST_ACTING, server.container.accounts);
    for (let i = 0; i < LIMITS.perAddress; i++)
      assert.equal((await whoami(`Token ${String(i).padStart(64, '0')}`, address)).statusCode, 401);
    const limited = await whoami(`Token ${'f'.repeat(64)}`, address);
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /Too many invalid tokens from your address/);
    assert.equal((await whoami(`Token ${token}`, address)).statusCode, 200);
    assert.equal(
      (await whoami(basic('bob', PASSWORD), address)).statusCode,
      200,
      'invalid tokens do not count against password sign-ins',
    );
  });

  test('a successful sign-in clears the failures of that username at that address', async () => {
    clock.advance(LIMITS.windowMs);
    for (let i = 0; i < LIMITS.perUserAndAddress - 1; i++) await whoami(basic('bob', 'wrong'), '198.18.0.1');
    assert.equal((await whoami(basic('bob', PASSWORD), '198.18.0.1')).statusCode, 200);
    for (let i = 0; i < LIMITS.perUserAndAddress - 1; i++) await whoami(basic('bob', 'wrong'), '198.18.0.1');
    assert.equal((await whoami(basic('bob', PASSWORD), '198.18.0.1')).statusCode, 200);
  });

  test('POST /api/v1/token/new: 30 a minute per user', async () => {
    const { limit, windowMs } = RATE_LIMITS.newToken;
    const tokenNew = () =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/token/new',
        headers: { authorization: basic('bob', PASSWORD) },
      });
    for (let i = 0; i < limit; i++) assert.equal((await tokenNew()).statusCode, 200, `request ${i + 1}`);
    const limited = await tokenNew();
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /at most 30 in a minute/);
    clock.advance(windowMs);
    assert.equal((await tokenNew()).statusCode, 200);
  });
});

describe(`sign-in limits are settings (${DIALECT})`, () => {
  test('APPSTORE_SIGNIN_FAILURES_PER_USER_AND_ADDRESS=2 and a 1-minute window', async () => {
    const clock = new TestClock();
    const server = await createTestServer({
      now: clock.now,
      configure: addWhoamiRoute,
      env: { APPSTORE_SIGNIN_FAILURES_PER_USER_AND_ADDRESS: '2', APPSTORE_SIGNIN_WINDOW_MINUTES: '1' },
    });
    await createUser(server.container, 'alice', PASSWORD);
    const whoami = (authorization: string) =>
      server.app.inject({
        method: 'GET',
        url: '/test/whoami',
        headers: { authorization },
        remoteAddress: '198.51.100.9',
      });
    assert.equal((await whoami(basic('alice', 'wrong'))).statusCode, 401);
    assert.equal((await whoami(basic('alice', 'wrong'))).statusCode, 401);
    const limited = await whoami(basic('alice', PASSWORD));
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /at most 2 in a minute/);
    clock.advance(60_000);
    assert.equal((await whoami(basic('alice', PASSWORD))).statusCode, 200);
    await server.close();
  });
});
