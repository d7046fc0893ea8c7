import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { currentSchema } from '../../src/storage/migrate.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/** Every form in which a secret could plausibly sit in a dump. */
function encodings(secret: string): string[] {
  const forms = new Set<string>([secret, secret.toUpperCase()]);
  const utf8 = Buffer.from(secret, 'utf8');
  forms.add(utf8.toString('base64').replace(/=+$/, ''));
  forms.add(utf8.toString('base64url'));
  forms.add(utf8.toString('hex'));
  if (/^[0-9a-f]+$/.test(secret) && secret.length % 2 === 0) {
    const raw = Buffer.from(secret, 'hex');
    forms.add(raw.toString('base64').replace(/=+$/, ''));
    forms.add(raw.toString('base64url'));
  }
  return [...forms].filter((form) => form.length >= 8);
}

function findPgDump(): string | null {
  const candidates = [
    'pg_dump',
    ...fs
      .readdirSync('/usr/lib/postgresql', { withFileTypes: true })
      .map((d) => `/usr/lib/postgresql/${d.name}/bin/pg_dump`),
  ];
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

describe(`secrets at rest (${DIALECT})`, () => {
  let server: TestServer;
  const secrets: string[] = [];
  before(async () => {
    server = await createTestServer();
    const passwords = ['correct horse battery staple', 'Pässwörd with ünïcode'];
    await createUser(server.container, 'alice', passwords[0] ?? '');
    await createUser(server.container, 'bob', passwords[1] ?? '');
    secrets.push(...passwords, `alice:${passwords[0]}`, `bob:${passwords[1]}`);
    const first = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic('alice', passwords[0] ?? '') },
      })
    ).json().token;
    const second = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token/new',
        headers: { authorization: `Token ${first}` },
      })
    ).json().token;
    const bobs = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic('bob', passwords[1] ?? '') },
      })
    ).json().token;
    const login = await server.app.inject({
      method: 'POST',
      url: '/login',
      payload: { username: 'bob', password: passwords[1] },
    });
    const session = String(login.headers['set-cookie']).match(/appstore_session=([^;]+)/)?.[1] ?? '';
    const cliToken = (await runCommand(['user', 'token', 'bob'], server.database.env)).stdout.trim();
    assert.equal(cliToken, bobs, 'the CLI returns the same stored token');
    secrets.push(first, second, bobs, session, login.json().csrfToken);
    assert.ok(secrets.every((s) => s.length > 0));
  });
  after(() => server.close());

  test('the database holds no issued token, session or password in any encoding checked', async () => {
    let dump: string;
    if (DIALECT === 'sqlite') {
      assert.equal(server.database.target.kind, 'sqlite');
      const file = server.database.target.kind === 'sqlite' ? server.database.target.file : '';
      dump = [file, `${file}-wal`, `${file}-shm`]
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f).toString('latin1'))
        .join('\n');
      assert.ok(dump.includes('alice'), 'sanity: the file holds the data');
    } else {
      const pgDump = findPgDump();
      assert.ok(pgDump !== null, 'pg_dump is needed for this test on PostgreSQL');
      const schema = await currentSchema(server.container.database);
      const url = server.database.target.kind === 'postgres' ? server.database.target.url : '';
      dump = execFileSync(pgDump, ['--data-only', `--schema=${schema}`, `--dbname=${url}`], { encoding: 'utf8' });
      assert.ok(dump.includes('alice'), 'sanity: the dump holds the data');
    }
    for (const secret of secrets) {
      for (const form of encodings(secret))
        assert.ok(!dump.includes(form), `found a secret (as ${form.slice(0, 6)}…) in the database`);
    }
  });

  test('the secret key lives in the data directory, readable by its owner only', () => {
    const mode = fs.statSync(server.container.config.secretKeyFile).mode & 0o777;
    assert.equal(mode, 0o600);
  });
});
