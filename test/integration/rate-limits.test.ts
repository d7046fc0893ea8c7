import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RATE_LIMITS } from '../../src/domain/rate-limit.ts';
import { addWhoamiRoute, basic, createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'secret-enough';

describe(`rate limits (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock();
  before(async () => {
    server = await createTestServer({ now: clock.now, configure: addWhoamiRoute });
    await createUser(server.container, 'alice', PASSWORD);
    await createUser(server.container, 'bob', PASSWORD);
  });
  after(() => server.close());

  const whoami = (authorization: string, remoteAddress: string) =>
    server.app.inject({ method: 'GET', url: '/test/whoami', headers: { authorization }, remoteAddress });

  test('failed sign-ins per username: engage with 429 and Retry-After, then release', async () => {
    const { limit, windowMs } = RATE_LIMITS.failedAuthPerUser;
    for (let i = 0; i < limit; i++) {
      assert.equal((await whoami(basic('alice', 'wrong'), `198.51.100.${i + 1}`)).statusCode, 401);
    }
    const limited = await whoami(basic('alice', PASSWORD), '198.51.100.200');
    assert.equal(limited.statusCode, 429, 'even the right password waits: the counter is per username, from any address');
    assert.equal(limited.json().code, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= windowMs / 1000, `Retry-After ${retryAfter}`);
    assert.equal((await whoami(basic('bob', PASSWORD), '198.51.100.200')).statusCode, 200, 'other users are not affected');
    clock.advance(retryAfter * 1000);
    assert.equal((await whoami(basic('alice', PASSWORD), '198.51.100.201')).statusCode, 200, 'released after Retry-After');
  });

  test('failed sign-ins per client address: engage for every user from it, not for others', async () => {
    const { limit, windowMs } = RATE_LIMITS.failedAuthPerAddress;
    const attacker = '203.0.113.7';
    for (let i = 0; i < limit; i++) {
      const response = await whoami(i % 2 === 0 ? basic(`user${i}`, 'x') : `Token ${String(i).padStart(64, '0')}`, attacker);
      assert.equal(response.statusCode, 401);
    }
    const limited = await whoami(basic('bob', PASSWORD), attacker);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await whoami(basic('bob', PASSWORD), '203.0.113.8')).statusCode, 200);
    const listing = await server.app.inject({ method: 'GET', url: '/api/v1/categories.json', remoteAddress: attacker });
    assert.equal(listing.statusCode, 200, 'listings are never rate-limited');
    clock.advance(windowMs);
    assert.equal((await whoami(basic('bob', PASSWORD), attacker)).statusCode, 200);
  });

  test('a successful sign-in clears the failures of that username', async () => {
    for (let i = 0; i < RATE_LIMITS.failedAuthPerUser.limit - 1; i++) await whoami(basic('bob', 'wrong'), '198.18.0.1');
    assert.equal((await whoami(basic('bob', PASSWORD), '198.18.0.2')).statusCode, 200);
    for (let i = 0; i < RATE_LIMITS.failedAuthPerUser.limit - 1; i++) await whoami(basic('bob', 'wrong'), '198.18.0.3');
    assert.equal((await whoami(basic('bob', PASSWORD), '198.18.0.4')).statusCode, 200);
  });

  test('POST /api/v1/token/new: 30 a minute per user', async () => {
    const { limit, windowMs } = RATE_LIMITS.newToken;
    const tokenNew = () => server.app.inject({ method: 'POST', url: '/api/v1/token/new', headers: { authorization: basic('bob', PASSWORD) } });
    for (let i = 0; i < limit; i++) assert.equal((await tokenNew()).statusCode, 200, `request ${i + 1}`);
    const limited = await tokenNew();
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().detail, /at most 30 in a minute/);
    clock.advance(windowMs);
    assert.equal((await tokenNew()).statusCode, 200);
  });
});
