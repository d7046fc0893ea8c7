import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { auditEntry } from '../../src/domain/audit/audit.ts';
import type { AuditEntry } from '../../src/domain/audit/audit.ts';
import { findUser } from '../../src/domain/accounts/manage-users.ts';
import { basic } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'sturdy audited lantern password';
const ENV = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' };

describe(`the audit log (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let env: Record<string, string>;
  let token = '';
  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({ env: ENV, downloadCa: [TEST_TLS_CA] });
    env = { ...server.database.env, ...ENV };
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  const cli = async (...args: string[]): Promise<string> => {
    const result = await runCommand(args, env, args.includes('--password-stdin') ? `${PASSWORD}\n` : undefined);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const api = async (method: 'POST' | 'DELETE', url: string, payload?: object, authorization = `Token ${token}`) => {
    const response = await server.app.inject({
      method,
      url,
      headers: { authorization, 'x-request-id': 'audit-test' },
      ...(payload === undefined ? {} : { payload }),
    });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response;
  };
  const rows = () => server.container.database.db.selectFrom('audit_log').selectAll().orderBy('id').execute();

  test('every kind of write leaves exactly one entry, with who, what and from where; no secret', async () => {
    const writes: Array<[string, () => Promise<unknown>]> = [
      [
        'categories.imported',
        async () => {
          const file = path.join(server.database.dataDir, 'categories.json');
          fs.writeFileSync(
            file,
            JSON.stringify(
              ['tools', 'multimedia'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
            ),
          );
          await cli('category', 'import', file);
        },
      ],
      [
        'platforms.imported',
        async () => {
          const file = path.join(server.database.dataDir, 'platforms.json');
          fs.writeFileSync(file, JSON.stringify([{ version: '31.0.0', hasRelease: true, isSupported: true }]));
          await cli('platform', 'import', file);
        },
      ],
      ['user.created', () => cli('user', 'add', 'olga', '--password-stdin')],
      [
        'token.issued',
        async () => (token = (await api('POST', '/api/v1/token', undefined, basic('olga', PASSWORD))).json().token),
      ],
      ['token.replaced', async () => (token = (await api('POST', '/api/v1/token/new')).json().token)],
      ['user.created', () => cli('user', 'add', 'piet', '--no-password')],
      [
        'app.registered',
        () => api('POST', '/api/v1/apps', { certificate: readCert('news.crt'), signature: readCert('news.sig') }),
      ],
      ['app.co_maintainer_added', () => cli('app', 'maintainer', 'add', 'news', 'piet')],
      ['app.co_maintainer_removed', () => cli('app', 'maintainer', 'remove', 'news', 'piet')],
      ['app.flags_changed', () => cli('app', 'set', 'news', '--featured')],
      [
        'release.published',
        async () => {
          const bytes = await appArchive({ version: '1.0.0' });
          files.serve('/news-1.tar.gz', bytes);
          await api('POST', '/api/v1/apps/releases', {
            download: `${files.origin}/news-1.tar.gz`,
            signature: signWith('news', bytes),
          });
        },
      ],
      [
        'release.updated',
        async () => {
          const bytes = await appArchive({ version: '1.0.0' });
          files.serve('/news-1b.tar.gz', bytes);
          await api('POST', '/api/v1/apps/releases', {
            download: `${files.origin}/news-1b.tar.gz`,
            signature: signWith('news', bytes),
          });
        },
      ],
      ['release.deleted', () => api('DELETE', '/api/v1/apps/news/releases/1.0.0')],
      ['app.transfer_unlocked', () => cli('app', 'transfer', 'news')],
      [
        'app.transfer_locked',
        () => api('POST', '/api/v1/apps', { certificate: readCert('news.crt'), signature: readCert('news.sig') }),
      ],
      [
        'rating.saved',
        async () => {
          const pietToken = (await cli('user', 'token', 'piet')).trim();
          await api('POST', '/api/v1/apps/news/ratings', { rating: 0.5, comment: 'fine' }, `Token ${pietToken}`);
          await api('DELETE', '/api/v1/apps/news/ratings', undefined, `Token ${pietToken}`);
        },
      ],
      ['user.password_changed', () => cli('user', 'passwd', 'piet', '--password-stdin')],
      ['user.disabled', () => cli('user', 'disable', 'piet')],
      ['user.enabled', () => cli('user', 'enable', 'piet')],
      ['certificate.revoked', () => cli('ca', 'revoke', certFile('mail-revoked.crt'))],
      ['app.deleted', () => api('DELETE', '/api/v1/apps/news')],
    ];
    for (const [event, write] of writes) {
      const before = (await rows()).length;
      await write();
      const added = (await rows()).slice(before).map((row) => row.event);
      // `user token piet` issues piet's token; rating.saved is followed by rating.deleted.
      const expected = event === 'rating.saved' ? ['token.issued', 'rating.saved', 'rating.deleted'] : [event];
      assert.deepEqual(added, expected, `${event}: the write left exactly its entry`);
    }

    const all = await rows();
    const registered = all.find((row) => row.event === 'app.registered');
    assert.equal(registered?.actor_kind, 'user');
    assert.equal(registered?.actor_name, 'olga');
    assert.equal(registered?.app_id, 'news');
    assert.equal(registered?.request_id, 'audit-test');
    assert.equal(registered?.address, '127.0.0.1');
    assert.match(JSON.parse(registered?.details ?? '{}').fingerprint, /^[0-9a-f]{64}$/);
    const published = all.find((row) => row.event === 'release.published');
    assert.equal(JSON.parse(published?.details ?? '{}').version, '1.0.0');
    const byCli = all.find((row) => row.event === 'user.disabled');
    assert.equal(byCli?.actor_kind, 'cli');
    assert.equal(byCli?.subject_user, 'piet');

    const text = JSON.stringify(all);
    const stored = await server.container.database.db.selectFrom('api_tokens').select('encrypted_token').execute();
    assert.equal(text.includes(token), false, 'no token');
    for (const row of stored) assert.equal(text.includes(row.encrypted_token), false, 'no sealed token');
    assert.equal(text.includes(PASSWORD), false, 'no password');
    assert.equal(/BEGIN|signature/i.test(text), false, 'no certificate, key or signature');
  });

  test('appstore audit shows the entries, filtered by app, user and date, as lines or JSON', async () => {
    const lines = (await cli('audit', '--app', 'news')).trim().split('\n');
    assert.match(
      lines[0] ?? '',
      /^\d{4}-\d\d-\d\dT\S+Z {2}app\.registered {2}olga {2}from 127\.0\.0\.1 {2}request audit-test {2}app=news {2}serial=/,
    );
    assert.ok(lines.every((line) => line.includes('app=news')));
    assert.ok(lines.some((line) => /app\.co_maintainer_added {2}cli:\S+ {2}app=news {2}user=piet/.test(line)));
    const aboutPiet = JSON.parse(await cli('audit', '--user', 'piet', '--json')) as Array<{
      event: string;
      subjectUser: string | null;
      actor: { name: string };
    }>;
    assert.ok(aboutPiet.length >= 6);
    assert.ok(aboutPiet.every((entry) => entry.subjectUser === 'piet' || entry.actor.name === 'piet'));
    // None: standard output stays empty (for scripts), and stderr says so.
    const none = await runCommand(['audit', '--since', '2999-01-01'], env);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr.trim(), 'no entries match');
    const refused = await runCommand(['audit', '--since', 'yesterday'], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--since 'yesterday' is not a date/);
  });

  test('a write that fails after its change keeps neither the change nor the entry', async () => {
    const failing = (entry: AuditEntry): AuditEntry => ({ ...entry, details: { poison: 1n as unknown as number } }); // JSON cannot hold a BigInt
    const before = (await rows()).length;
    await cli('user', 'add', 'quinn', '--no-password');
    const registry = server.container.appManagement.registry;
    const user = await findUser('quinn', server.container.accounts);
    const accounts = server.container.accounts.store;

    await assert.rejects(
      accounts.setActive(
        user.id,
        false,
        new Date(),
        failing(auditEntry(TEST_ACTING, 'user.disabled', { subjectUser: 'quinn' })),
      ),
    );
    assert.equal((await findUser('quinn', server.container.accounts)).isActive, true, 'the user is still active');
    await assert.rejects(
      server.container.catalog.store.upsertCategories(
        [{ id: 'games', translations: { en: { name: 'Games', description: '' } } }],
        new Date(),
        () => failing(auditEntry(TEST_ACTING, 'categories.imported')),
      ),
    );
    assert.equal(
      (await server.container.catalog.store.categoryIds()).has('games'),
      false,
      'the category was not created',
    );
    // A write that changes nothing (no such app) writes no entry: the poisoned one is never written.
    await registry.setTransferUnlocked(
      'nosuch',
      true,
      new Date(),
      failing(auditEntry(TEST_ACTING, 'app.transfer_unlocked')),
    );
    const after = await rows();
    assert.deepEqual(
      after.slice(before).map((row) => row.event),
      ['user.created'],
      'only the successful write left an entry',
    );
  });
});
