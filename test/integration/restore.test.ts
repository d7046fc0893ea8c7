import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_TLS_CA_FILE, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { runAppstore, runCommand } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { fetchSend, publishFixtureRelease, registerFixtureApp, tokenOf } from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

const ENV = {
  APPSTORE_CA_CERT: certFile('chain.pem'),
  APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
  NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE,
};
const PASSWORD = 'a password for the restore';
const LISTINGS = ['/api/v1/apps.json', '/api/v1/categories.json'];

interface Listed {
  id: string;
  releases: Array<{ version: string }>;
}

/**
 * Every ETag a client was ever given, with the body it came with: after any restore, an ETag
 * seen again must come with the same body, and a client's If-None-Match from before the restore
 * must not get a 304 for other content.
 */
class EtagLedger {
  private readonly bodies = new Map<string, string>();

  async read(send: Send, url: string, ifNoneMatch?: string): Promise<{ etag: string; body: string }> {
    const answer = await send('GET', url, {
      headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
    });
    if (answer.status === 304) {
      // A 304 says the client's body is current: it must be what that ETag was given with.
      return { etag: ifNoneMatch ?? '', body: this.bodies.get(ifNoneMatch ?? '') ?? '' };
    }
    assert.equal(answer.status, 200, `${url}: ${answer.status}`);
    const etag = answer.headers.etag ?? '';
    const known = this.bodies.get(etag);
    assert.ok(known === undefined || known === answer.text, `${url}: the ETag ${etag} came back with other content`);
    this.bodies.set(etag, answer.text);
    return { etag, body: answer.text };
  }

  has(etag: string): boolean {
    return this.bodies.has(etag);
  }
}

const releasesOf = (body: string): string[] =>
  (JSON.parse(body) as Listed[]).flatMap((app) => app.releases.map((r) => `${app.id} ${r.version}`)).sort();
const categoryNames = (body: string): string[] =>
  (JSON.parse(body) as Array<{ translations: { en: { name: string } } }>).map((c) => c.translations.en.name);

describe(`appstore restore: the backup's content, a new epoch, no ETag reused (${DIALECT})`, () => {
  let database: TestDatabase;
  let files: ArchiveServer;
  let dir: string;
  const nodes: ServeProcess[] = [];
  let token = '';
  const ledger = new EtagLedger();
  const env = (): Record<string, string> => ({ ...database.env, ...ENV });

  before(async () => {
    files = await startArchiveServer();
    database = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(database.dataDir, 'restore-'));
    const added = await runCommand(['user', 'add', 'rosa', '--password-stdin'], env(), `${PASSWORD}\n`);
    assert.equal(added.code, 0, added.stderr);
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    await files?.close();
    await database?.dispose();
  });

  const categories = async (name: string): Promise<void> => {
    const file = path.join(dir, `${name.replace(/\W/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify([{ id: 'multimedia', translations: { en: { name, description: '' } } }]));
    const result = await runAppstore(['category', 'import', file], env());
    assert.equal(result.code, 0, result.stderr);
  };
  const publish = async (send: Send, version: string): Promise<void> => {
    const answer = await publishFixtureRelease(send, token, files, { id: 'news', version, nextcloud: ['30', '31'] });
    assert.equal(answer.status, 201, answer.text);
  };
  const backUp = (file: string): void => {
    if (DIALECT === 'sqlite') return;
    const url = database.env['APPSTORE_DATABASE_URL'] ?? '';
    // The whole database, as docs/operations.md tells operators (each test has a database of its own).
    const dumped = spawnSync('pg_dump', ['--format=custom', '--file', file, url], {
      encoding: 'utf8',
    });
    assert.equal(dumped.status, 0, dumped.stderr);
  };

  test('with nodes running: refused on SQLite (then after kill -9, restored), taken at once on PostgreSQL', async () => {
    // Two nodes on PostgreSQL (one store), one on SQLite, all `bin/appstore.js serve`.
    for (let i = 0; i < (DIALECT === 'postgres' ? 2 : 1); i++) nodes.push(await startServeProcess(env()));
    const sends = nodes.map((node) => fetchSend(node.url));
    const first = sends[0]!;
    token = await tokenOf(first, 'rosa', PASSWORD);
    await categories('Before the backup');
    await registerFixtureApp(first, token, 'news');
    await publish(first, '1.0.0');

    const backup = path.join(dir, DIALECT === 'sqlite' ? 'backup.sqlite' : 'backup.dump');
    if (DIALECT === 'sqlite') {
      const result = await runAppstore(['backup', backup], env());
      assert.equal(result.code, 0, result.stderr);
    } else backUp(backup);
    const atBackup = new Map<string, string>();
    for (const url of LISTINGS) atBackup.set(url, (await ledger.read(first, url)).body);

    // After the backup: a release and a category name that the restore takes away.
    await publish(first, '1.1.0');
    await categories('After the backup');
    const beforeRestore = new Map<string, string>();
    for (const send of sends) for (const url of LISTINGS) beforeRestore.set(url, (await ledger.read(send, url)).etag);
    assert.deepEqual(releasesOf((await ledger.read(first, '/api/v1/apps.json')).body), ['news 1.0.0', 'news 1.1.0']);

    if (DIALECT === 'sqlite') {
      const refused = await runAppstore(['restore', backup], env());
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, /A server is running on .*appstore\.sqlite: stop it first .* Nothing was changed/);
      assert.deepEqual(
        categoryNames((await ledger.read(first, '/api/v1/categories.json')).body),
        ['After the backup'],
        'nothing changed',
      );
      // The guide's case: the server killed (its last commits still in the -wal file), then restored.
      nodes[0]!.child.kill('SIGKILL');
      await new Promise((resolve) => nodes[0]!.child.once('exit', resolve));
      nodes.length = 0;
      assert.ok(fs.existsSync(path.join(database.dataDir, 'appstore.sqlite-wal')), 'the -wal file the kill left');
    }
    const restored = await runAppstore(['restore', backup], env());
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored .*; the database's new epoch is [0-9a-f]{12}/);
    if (DIALECT === 'postgres') {
      // The planner's statistics, which pg_restore does not bring back, were gathered at once.
      const handle = await database.open({ migrate: false });
      const { rows } = await sql<{ relname: string; analyzed: boolean }>`
        select relname, last_analyze is not null as analyzed from pg_stat_user_tables
        where relname in ('apps', 'releases', 'app_translations') order by relname`.execute(handle.db);
      assert.deepEqual(
        rows.map((row) => [row.relname, row.analyzed]),
        [
          ['app_translations', true],
          ['apps', true],
          ['releases', true],
        ],
      );
    }
    if (DIALECT === 'sqlite') {
      assert.match(restored.stdout, /kept as .*appstore\.sqlite\.before-restore-/);
      assert.equal(
        fs.existsSync(path.join(database.dataDir, 'appstore.sqlite-wal')),
        false,
        'no -wal replayed over the backup',
      );
      nodes.push(await startServeProcess(env()));
    }

    const after = nodes.map((node) => fetchSend(node.url));
    for (const send of after) {
      for (const url of LISTINGS) {
        // The client's ETag from before the restore: other content now, so a 200 with a new ETag.
        const answer = await send('GET', url, { headers: { 'if-none-match': beforeRestore.get(url) ?? '' } });
        assert.equal(answer.status, 200, `${url}: answered ${answer.status} to the ETag from before the restore`);
        const { etag, body } = await ledger.read(send, url);
        assert.equal(body, atBackup.get(url), `${url}: the backup's content`);
        assert.notEqual(etag, beforeRestore.get(url));
      }
      assert.deepEqual(
        releasesOf((await ledger.read(send, '/api/v1/apps.json')).body),
        ['news 1.0.0'],
        'the release published after the backup is gone',
      );
    }

    // Writes after the restore count in the new epoch: the same numbers as before, other ETags.
    await publish(after.at(-1)!, '1.2.0');
    await categories('After the restore');
    const etags = new Set<string>();
    for (const send of after) {
      const apps = await ledger.read(send, '/api/v1/apps.json');
      assert.deepEqual(releasesOf(apps.body), ['news 1.0.0', 'news 1.2.0']);
      assert.deepEqual(categoryNames((await ledger.read(send, '/api/v1/categories.json')).body), ['After the restore']);
      etags.add(apps.etag);
    }
    assert.equal(etags.size, 1, 'every node sends the same ETag for the same content');
  });

  test(
    'PostgreSQL restored by hand (pg_restore, not the command) with nodes running: a node sees the version go back and gives a new epoch',
    { skip: DIALECT === 'sqlite' ? 'PostgreSQL only: SQLite is restored by the command alone' : false },
    async () => {
      const sends = nodes.map((node) => fetchSend(node.url));
      const backup = path.join(dir, 'by-hand.dump');
      backUp(backup);
      const atBackup = (await ledger.read(sends[0]!, '/api/v1/categories.json')).body;
      await categories('After the second backup');
      const beforeRestore = (await ledger.read(sends[0]!, '/api/v1/categories.json')).etag;
      const url = database.env['APPSTORE_DATABASE_URL'] ?? '';
      const restored = spawnSync(
        'pg_restore',
        ['--clean', '--if-exists', '--single-transaction', '--dbname', url, backup],
        { encoding: 'utf8' },
      );
      assert.equal(restored.status, 0, restored.stderr);
      // pg_restore alone notifies nobody: each node sees it at its next read of the version,
      // within a second (its requests meanwhile wait on the listening connection's fence).
      for (const send of sends) {
        await eventually(async () => {
          const answer = await send('GET', '/api/v1/categories.json', { headers: { 'if-none-match': beforeRestore } });
          assert.equal(answer.status, 200, 'no 304 for the content from before the restore');
        });
        assert.equal((await ledger.read(send, '/api/v1/categories.json')).body, atBackup);
      }
      // The new epoch is written by the first node that saw the version go back; then writes count in it.
      await categories('After the restore by hand');
      for (const send of sends) {
        const { etag, body } = await ledger.read(send, '/api/v1/categories.json');
        assert.deepEqual(categoryNames(body), ['After the restore by hand']);
        assert.notEqual(etag.split('-')[0], beforeRestore.split('-')[0], 'another epoch');
      }
    },
  );

  test('a file that is not a backup of this store is refused, and nothing changes', async () => {
    const junk = path.join(dir, 'junk.bin');
    fs.writeFileSync(junk, 'not a database at all');
    const before = await ledger.read(fetchSend(nodes[0]!.url), '/api/v1/categories.json');
    if (DIALECT === 'sqlite') {
      // The server runs there: refused for that first. Into a data directory without a server:
      const elsewhere = fs.mkdtempSync(path.join(dir, 'elsewhere-'));
      const refused = await runAppstore(['restore', junk], { ...ENV, APPSTORE_DATA_DIR: elsewhere });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /junk\.bin is not a SQLite database .*give a file written by `appstore backup`/);
      assert.deepEqual(
        fs.readdirSync(elsewhere).filter((name) => !name.endsWith('.lock')),
        [],
        'no database made',
      );
    } else {
      const refused = await runAppstore(['restore', junk], env());
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /pg_restore failed .*nothing was changed/);
    }
    assert.equal((await ledger.read(fetchSend(nodes[0]!.url), '/api/v1/categories.json')).body, before.body);
    const missing = await runAppstore(['restore', path.join(dir, 'no-such-file')], env());
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no-such-file: no such file/);
  });
});
