import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { basic } from '../helpers/accounts.ts';
import { runAppstore, runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

describe(`appstore user … (${DIALECT})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  const whoami = (authorization: string) =>
    server.app.inject({ method: 'POST', url: '/api/v1/token', headers: { authorization } });
  before(async () => {
    server = await createTestServer();
    env = server.database.env;
  });
  after(() => server.close());

  test("add with a password from stdin (the website's rule, unless waived), and without a password", async () => {
    // A child process, as an operator runs it (the bundle): the password arrives on the real standard input.
    const args = [
      'user',
      'add',
      'alice',
      '--email',
      'alice@example.org',
      '--first-name',
      'Alice',
      '--last-name',
      'Liddell',
      '--admin',
      '--password-stdin',
    ];
    const short = await runAppstore(args, env, 'abc\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /Invalid password: it has 3 characters; use at least 10/);
    // Weak only by the estimator's dictionaries: the bundle loaded them.
    const common = await runAppstore(args, env, 'baseballfootball\n');
    assert.equal(common.code, 1);
    assert.match(common.stderr, /too easy to guess/);
    const alice = await runAppstore([...args, '--allow-weak-password'], env, 'first pass\n');
    assert.equal(alice.code, 0, alice.stderr);
    assert.equal(alice.stdout.trim(), 'created user alice (administrator)');
    const bob = await runCommand(['user', 'add', 'bob', '--no-password'], env);
    assert.equal(bob.stdout.trim(), 'created user bob without a password');
    assert.equal((await whoami(basic('alice', 'first pass'))).statusCode, 200);
    const list = await runCommand(['user', 'list'], env);
    assert.equal(list.stdout, 'alice\talice@example.org\tadmin\nbob\t-\tno-password\n');
  });

  test('invite: an account without a password, and a mailed link (here: a file and its link) that sets one', async () => {
    const invited = await runCommand(['user', 'invite', 'vera', '--email', 'vera@example.org'], env);
    assert.equal(invited.code, 0, invited.stderr);
    assert.match(invited.stdout, /invited vera: a link to choose a password was mailed to vera@example\.org/);
    const link = /https?:\/\/\S+\/account\/reset\/[A-Za-z0-9_-]+/.exec(invited.stdout)?.[0];
    assert.ok(link !== undefined, invited.stdout);
    const path = new URL(link).pathname;
    const page = await server.app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /For the account vera/);
    const formCookie = page.cookies.find((c) => c.name === 'appstore_form')?.value ?? '';
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const set = await server.app.inject({
      method: 'POST',
      url: path,
      headers: {
        accept: 'text/html',
        cookie: `appstore_form=${formCookie}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ csrf_token: csrf, password: 'violet tractor nebula quilt' }).toString(),
    });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(
      (await whoami(basic('vera', 'violet tractor nebula quilt'))).statusCode,
      200,
      'the address is confirmed by the link',
    );
    assert.equal((await runCommand(['user', 'invite', 'nomail'], env)).code, 2);
  });

  test('clear refusals: duplicate name, empty password, bad name, both or neither password flag', async () => {
    const duplicate = await runCommand(['user', 'add', 'alice', '--no-password'], env);
    assert.equal(duplicate.code, 1);
    assert.equal(
      duplicate.stderr.trim(),
      "appstore: A user named 'alice' already exists.\n  username: is taken: choose another name",
    );
    // Another case is the same name (issue 49).
    const lookalike = await runCommand(['user', 'add', 'ALICE', '--no-password'], env);
    assert.equal(lookalike.code, 1);
    assert.match(
      lookalike.stderr,
      /A user named 'alice' \(the same name as 'ALICE': names are the same in any case\) already exists/,
    );
    const empty = await runCommand(['user', 'add', 'carol', '--password-stdin'], env, '\n');
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /password: it is empty/);
    const badName = await runCommand(['user', 'add', 'no spaces', '--no-password'], env);
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /not a valid username/);
    const both = await runCommand(['user', 'add', 'dave', '--no-password', '--password-stdin'], env, 'x\n');
    assert.equal(both.code, 2);
    const neither = await runCommand(['user', 'add', 'dave'], env);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /exactly one of --password-stdin and --no-password/);
    const list = await runCommand(['user', 'list'], env);
    assert.doesNotMatch(list.stdout, /carol|dave/, 'nothing was created');
  });

  test('token prints the same token as POST /api/v1/token, creating it if needed', async () => {
    const first = await runCommand(['user', 'token', 'bob'], env);
    assert.equal(first.code, 0, first.stderr);
    const token = first.stdout.trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.equal((await runCommand(['user', 'token', 'bob'], env)).stdout.trim(), token);
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token/new',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(response.statusCode, 200, 'the printed token authenticates');
  });

  test('passwd sets a password, also for a password-less account', async () => {
    const weak = await runCommand(['user', 'passwd', 'bob', '--password-stdin'], env, 'bobbob12345\n');
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /too easy to guess/);
    const changed = await runCommand(
      ['user', 'passwd', 'bob', '--password-stdin', '--allow-weak-password'],
      env,
      'bobs new password\n',
    );
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal((await whoami(basic('bob', 'bobs new password'))).statusCode, 200);
    const missingFlag = await runCommand(['user', 'passwd', 'bob'], env);
    assert.equal(missingFlag.code, 2);
  });

  test('disable and enable', async () => {
    assert.equal((await runCommand(['user', 'disable', 'alice'], env)).stdout.trim(), 'user alice disabled');
    assert.equal((await whoami(basic('alice', 'first pass'))).statusCode, 401);
    assert.match((await runCommand(['user', 'list'], env)).stdout, /alice\talice@example.org\tadmin,disabled/);
    assert.equal((await runCommand(['user', 'enable', 'alice'], env)).code, 0);
    assert.equal((await whoami(basic('alice', 'first pass'))).statusCode, 200);
  });

  test('admin: an existing account made an administrator, and back (audited)', async () => {
    assert.equal((await runCommand(['user', 'admin', 'bob'], env)).stdout.trim(), 'bob is an administrator');
    assert.match((await runCommand(['user', 'list'], env)).stdout, /^bob\t-\tadmin$/m);
    const back = await runCommand(['user', 'admin', 'bob', '--revoke'], env);
    assert.equal(back.stdout.trim(), 'bob is no longer an administrator');
    assert.match((await runCommand(['user', 'list'], env)).stdout, /^bob\t-\t-$/m);
    const events = (await server.container.audit.find({ user: 'bob', limit: 10 })).map((r) => r.event);
    assert.ok(events.includes('user.admin_granted') && events.includes('user.admin_revoked'), events.join(', '));
    assert.match((await runCommand(['user', 'admin', '--help'], env)).stdout, /admin pages' Users tab/);
  });

  test('unknown user', async () => {
    for (const args of [
      ['user', 'token', 'nobody'],
      ['user', 'disable', 'nobody'],
      ['user', 'enable', 'nobody'],
      ['user', 'admin', 'nobody'],
    ]) {
      const result = await runCommand(args, env);
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim(), "appstore: There is no user named 'nobody'.");
    }
  });
});

describe('appstore: a mistyped setting, a store that is not there', () => {
  test('an unknown APPSTORE_ variable is named with what was meant; a command that reads creates no store', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-nostore-'));
    try {
      const result = await runCommand(['user', 'list'], {
        APPSTORE_DATA_DIRR: path.join(dir, 'store'),
        APPSTORE_DATA_DIR: path.join(dir, 'data'),
      });
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^appstore: warning: APPSTORE_DATA_DIRR is not a setting of this store and is ignored; did you mean APPSTORE_DATA_DIR\?$/m,
      );
      assert.match(result.stderr, /^appstore: no store at .*data: set APPSTORE_DATA_DIR .*run `appstore migrate`/m);
      assert.equal(result.stdout, '');
      assert.deepEqual(fs.readdirSync(dir), [], 'nothing was created');
      for (const args of [['audit'], ['discover', 'export'], ['mirror', 'status'], ['backup', path.join(dir, 'b')]]) {
        const refused = await runCommand(args, { APPSTORE_DATA_DIR: path.join(dir, 'data') });
        assert.equal(refused.code, 1, `${args.join(' ')}: ${refused.stderr}`);
        assert.match(refused.stderr, /no store at/);
      }
      assert.deepEqual(fs.readdirSync(dir), [], 'nothing was created');
      // Once created, an empty list says so (on stderr: stdout stays the list, for scripts).
      assert.equal((await runCommand(['migrate'], { APPSTORE_DATA_DIR: path.join(dir, 'data') })).code, 0);
      const empty = await runCommand(['user', 'list'], { APPSTORE_DATA_DIR: path.join(dir, 'data') });
      assert.equal(empty.code, 0, empty.stderr);
      assert.equal(empty.stdout, '');
      assert.match(empty.stderr, /no users yet: appstore user add NAME adds one/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
