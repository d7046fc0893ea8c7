import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hotp, stepAt } from '../../src/domain/accounts/totp.ts';
import { lacksRequiredFactor, setTwoFactorRequirement } from '../../src/domain/accounts/two-factor.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { TestClock } from '../helpers/clock.ts';
import { injectSend } from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

const PASSWORD = 'quartz lantern meadow echo';

function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/**
 * Two-factor sign-in with an authenticator app (issue 53 §4), on a clock the test moves: set up,
 * sign in with a code (never the same one twice), a recovery code once, the API's sign-in with
 * `code`, Basic refused for writes, the attempts limited, removal, and an administrator's
 * requirement. Every step that matters is in the audit log.
 */
describe(`two-factor sign-in (${DIALECT})`, () => {
  let server: TestServer;
  let send: Send;
  let secret: Buffer;
  let recovery: string[] = [];
  const clock = new TestClock(new Date().toISOString());
  const code = (offsetSteps = 0) => hotp(secret, stepAt(clock.now()) + offsetSteps);

  /** The password step; the page it leads to is loaded (its forms carry the next CSRF token). */
  const signIn = async (web: WebClient, username = 'tina', password = PASSWORD) => {
    await web.get('/account/login');
    const answer = await web.post('/account/login', { username, password, next: '/account' });
    if (answer.headers.location !== undefined) await web.get(String(answer.headers.location));
    return answer;
  };

  before(async () => {
    server = await createTestServer({ now: clock.now });
    send = injectSend(server.app);
    await createUser(server.container, 'tina', PASSWORD);
    await createUser(server.container, 'root', PASSWORD, { isAdmin: true });
  });
  after(() => server.close());

  test('setting up an authenticator app: a code from it turns it on, and ten recovery codes are shown once', async () => {
    const web = new WebClient(server.app);
    assert.equal((await signIn(web)).headers.location, '/account');
    await web.get('/account/security');
    const started = await web.post('/account/security/totp/start', {});
    const key = /id="totp-secret" class="token" type="text" readonly value="([A-Z2-7]+)"/.exec(started.body)?.[1];
    assert.ok(key !== undefined, 'the key is shown');
    assert.match(started.body, /href="otpauth:\/\/totp\/App%20Store%3Atina\?secret=/);
    secret = fromBase32(key);
    const wrong = await web.post('/account/security/totp/confirm', {
      code: '000000' === code() ? '111111' : '000000',
      current_password: PASSWORD,
    });
    assert.equal(wrong.statusCode, 400);
    const noPassword = await web.post('/account/security/totp/confirm', { code: code(), current_password: '' });
    assert.equal(noPassword.statusCode, 400, 'adding a factor asks for the password again');
    const confirmed = await web.post('/account/security/totp/confirm', { code: code(), current_password: PASSWORD });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    recovery = [...confirmed.body.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map(
      (m) => m[1] ?? '',
    );
    assert.equal(recovery.length, 10);
    assert.match(confirmed.body, /Second factor: <strong>on<\/strong>/);
    assert.doesNotMatch(
      (await web.get('/account/security')).body,
      /<code>[a-z2-9]{5}-[a-z2-9]{5}<\/code>/,
      'shown once',
    );
  });

  test('signing in: the password, then a code; a code is not taken twice; wrong codes are limited', async () => {
    clock.advance(30_000);
    const web = new WebClient(server.app);
    const first = await signIn(web);
    assert.equal(first.headers.location, '/account/login/second-factor');
    const page = await web.get('/account/login/second-factor');
    assert.match(page.body, /Code from the authenticator app/);
    assert.equal((await web.get('/account')).statusCode, 303, 'no session yet');
    await web.get('/account/login/second-factor');
    const wrong = await web.post('/account/login/second-factor', { code: '12345' });
    assert.equal(wrong.statusCode, 401);
    const used = code();
    const done = await web.post('/account/login/second-factor', { code: used });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/account');
    assert.equal((await web.get('/account')).statusCode, 200);

    const again = new WebClient(server.app);
    await signIn(again);
    const replay = await again.post('/account/login/second-factor', { code: used });
    assert.match(replay.body, /wrong or was used already/);
    assert.equal(replay.statusCode, 401, 'the same code twice');
    // Successes do not count against the limit: a dozen sign-ins in a row all pass.
    for (let i = 0; i < 12; i++) {
      clock.advance(30_000);
      const ok = await send('POST', '/login', { payload: { username: 'tina', password: PASSWORD, code: code() } });
      assert.equal(ok.status, 200, ok.text);
    }
    await again.get('/account/login/second-factor');
    for (let i = 0; i < 10; i++) await again.post('/account/login/second-factor', { code: '000001' });
    const limited = await again.post('/account/login/second-factor', { code: code(1) });
    assert.equal(limited.statusCode, 429);
    clock.advance(16 * 60_000);
  });

  test('a recovery code signs in once, and is audited', async () => {
    const web = new WebClient(server.app);
    await signIn(web);
    const [first] = recovery;
    const done = await web.post('/account/login/second-factor', { code: (first ?? '').toUpperCase() });
    assert.equal(done.statusCode, 303, done.body);
    await web.get('/account/security');
    const other = new WebClient(server.app);
    await signIn(other);
    assert.equal((await other.post('/account/login/second-factor', { code: first ?? '' })).statusCode, 401);
    const events = (await server.container.audit.find({ user: 'tina', limit: 50 })).map((entry) => entry.event);
    for (const event of ['user.two_factor_enabled', 'user.recovery_code_used', 'user.second_factor_sign_in'])
      assert.ok(events.includes(event as never), `${event} in ${events.join(' ')}`);
    assert.match((await web.get('/account/security')).body, /9 of 10 unused/);
  });

  test('the API: POST /login needs "code"; Basic may read but not write', async () => {
    clock.advance(60_000);
    const without = await send('POST', '/login', { payload: { username: 'tina', password: PASSWORD } });
    assert.equal(without.status, 401);
    assert.equal(without.json<{ code: string }>().code, 'second_factor_required');
    const withCode = await send('POST', '/login', { payload: { username: 'tina', password: PASSWORD, code: code() } });
    assert.equal(withCode.status, 200, withCode.text);

    const write = await send('POST', '/api/v1/token', { headers: { authorization: basic('tina', PASSWORD) } });
    assert.equal(write.status, 401);
    assert.match(write.json<{ detail: string }>().detail, /use a token instead/);
    const read = await send('GET', '/api/v1/tokens', { headers: { authorization: basic('tina', PASSWORD) } });
    assert.equal(read.status, 200, read.text);
  });

  test('removing the app needs the password; then Basic writes again', async () => {
    const web = new WebClient(server.app);
    await signIn(web);
    clock.advance(30_000);
    await web.post('/account/login/second-factor', { code: code() });
    await web.get('/account/security');
    const refused = await web.post('/account/security/totp/remove', { current_password: 'not it' });
    assert.equal(refused.statusCode, 401);
    assert.match(refused.body, /That is not your current password/);
    const passkeyWithout = await web.post('/account/security/passkeys/remove', { passkey: '1', current_password: '' });
    assert.equal(passkeyWithout.statusCode, 400, 'removing a passkey asks for the password too');
    const removed = await web.post('/account/security/totp/remove', { current_password: PASSWORD });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.match(removed.body, /Second factor: <strong>off<\/strong>/);
    const write = await send('POST', '/api/v1/token', { headers: { authorization: basic('tina', PASSWORD) } });
    assert.equal(write.status, 200, write.text);
    const events = (await server.container.audit.find({ user: 'tina', event: 'user.two_factor_removed', limit: 5 }))
      .length;
    assert.equal(events, 1);
  });

  test("an administrator's requirement: admins without a second factor are sent to set one up, and Basic cannot write", async () => {
    await setTwoFactorRequirement('admins', TEST_ACTING, server.container.accounts);
    const web = new WebClient(server.app);
    const signedIn = await signIn(web, 'root');
    assert.equal(signedIn.headers.location, '/account/security?required=1');
    assert.match((await web.get('/account/security?required=1')).body, /requires a second factor for your account/);
    const developer = await web.get('/developer');
    assert.equal(developer.statusCode, 303);
    assert.equal(developer.headers.location, '/account/security?required=1');
    assert.equal((await web.get('/admin')).headers.location, '/account/security?required=1');
    const write = await send('POST', '/api/v1/token', { headers: { authorization: basic('root', PASSWORD) } });
    assert.equal(write.status, 401);
    assert.match(write.json<{ detail: string }>().detail, /requires a second factor/);
    // Others are not asked.
    assert.equal(
      (await send('POST', '/api/v1/token', { headers: { authorization: basic('tina', PASSWORD) } })).status,
      200,
    );
    // An admin without a password (an external login) cannot add a factor here: not required of them.
    const external = await createUser(server.container, 'extadmin', null, { isAdmin: true });
    assert.equal(await lacksRequiredFactor(external, server.container.accounts), false);
    await assert.rejects(
      setTwoFactorRequirement('everyone', TEST_ACTING, server.container.accounts),
      /none, admins or maintainers/,
    );
    await setTwoFactorRequirement('none', TEST_ACTING, server.container.accounts);
  });
});
