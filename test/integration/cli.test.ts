import assert from 'node:assert/strict';
import { MIGRATION_NAMES } from '../../src/storage/migrate.ts';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { COMMANDS } from '../../src/cli/main.ts';
import { CATEGORIES, PLATFORMS } from '../helpers/catalog-data.ts';
import { ROOT, runAppstore, runCommand } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

describe('appstore: help and usage', () => {
  test('--help lists every command; each command has its own --help', async () => {
    const overview = await runCommand(['--help'], {});
    assert.equal(overview.code, 0);
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    for (const command of COMMANDS) assert.ok(flat(overview.stdout).includes(command.usage), command.usage);
    // Wrapped at the terminal's width (80 columns when it is not a terminal).
    for (const args of [['--help'], ['user', 'add', '--help'], ['app', '--help'], ['release', 'inspect', '--help']]) {
      const long = (await runCommand(args, {})).stdout.split('\n').filter((line) => line.length > 80);
      assert.deepEqual(long, [], args.join(' '));
    }
    const help = await runCommand(['category', 'import', '--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: appstore category import FILE/);
  });

  test('`npx appstore` works in the project after install, with no build step', () => {
    const result = spawnSync('npx', ['--no-install', 'appstore', '--help'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^Usage: appstore COMMAND/);
  });

  test('unknown command, missing argument, extra argument: exit 2 with one line on stderr', async () => {
    const unknown = await runCommand(['frobnicate'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^appstore: unknown command 'frobnicate'/);
    // A typo: the one command meant, not the whole group.
    const typo = await runCommand(['user', 'lst'], {});
    assert.equal(typo.code, 2);
    assert.equal(typo.stderr.trim(), "appstore: unknown command 'user lst'; did you mean 'appstore user list'?");
    assert.match(
      (await runCommand(['user', 'frob'], {})).stderr,
      /the user commands are: add, invite, token, passwd, disable, enable, admin, list/,
    );
    const missing = await runCommand(['category', 'import'], {});
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim(), 'appstore: missing FILE; usage: appstore category import FILE');
    const extra = await runCommand(['migrate', 'now'], {});
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /unexpected argument 'now'/);
  });

  test('`appstore --version`, and a group of commands lists its subcommands', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const version = await runCommand(['--version'], {});
    assert.equal(version.code, 0);
    assert.equal(version.stdout.trim(), `appstore ${manifest.version}`);
    for (const group of ['release', 'ca', 'user', 'app']) {
      const help = await runCommand([group, '--help'], {});
      assert.equal(help.code, 0, group);
      assert.match(help.stdout, new RegExp(`^Usage: appstore ${group} SUBCOMMAND`));
      for (const command of COMMANDS.filter((c) => c.path[0] === group))
        assert.ok(help.stdout.replace(/\s+/g, ' ').includes(command.usage), command.usage);
    }
    // A group within a group.
    const maintainer = await runCommand(['app', 'maintainer', '--help'], {});
    assert.equal(maintainer.code, 0, maintainer.stderr);
    assert.match(
      maintainer.stdout,
      /appstore app maintainer add APP USER[\s\S]*appstore app maintainer remove APP USER/,
    );
    const bare = await runCommand(['ca'], {});
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /appstore ca init/);
  });

  test('every command parses its flags strictly: a misspelt option is refused as such', async () => {
    const misspelt = await runCommand(['release', 'inspect', 'x.tar.gz', '--nighly'], {});
    assert.equal(misspelt.code, 2);
    assert.equal(
      misspelt.stderr.trim(),
      "appstore: unknown option '--nighly'; usage: appstore release inspect ARCHIVE.tar.gz [--nightly]",
    );
    for (const args of [
      ['migrate', '--force'],
      ['user', 'list', '--all'],
      ['ca', 'init', '-x'],
      ['app', 'set', 'news', '--shiny'],
      ['category', 'import', 'f.json', '--dry-run'],
    ]) {
      const result = await runCommand(args, {});
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^appstore: unknown option '-/, args.join(' '));
    }
    const value = await runCommand(['user', 'add', 'alice', '--no-password', '--email'], {});
    assert.equal(value.code, 2);
    assert.match(value.stderr, /--email/);
  });

  test('a configuration error lists every problem and exits 2', async () => {
    const result = await runCommand(['migrate'], { APPSTORE_PORT: 'x', APPSTORE_LOG_LEVEL: 'loud' });
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /APPSTORE_PORT: 'x' is not a port number/);
    assert.match(result.stderr, /APPSTORE_LOG_LEVEL: 'loud'/);
  });
});

describe(`appstore: migrate and imports (${DIALECT})`, () => {
  let database: TestDatabase;
  let dir: string;
  const file = (name: string, content: unknown): string => {
    const target = path.join(dir, name);
    fs.writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
    return target;
  };
  before(async () => {
    database = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(database.dataDir, 'files-'));
  });
  after(() => database.dispose());

  test('migrate from empty, then again', async () => {
    const first = await runCommand(['migrate'], database.env);
    assert.equal(first.code, 0, first.stderr);
    // Every migration (test/integration/migrations.test.ts lists them), and nothing to note on an empty database.
    assert.equal(first.stdout.trim(), `applied: ${MIGRATION_NAMES.join(', ')}`);
    const second = await runCommand(['migrate'], database.env);
    assert.equal(second.stdout.trim(), 'database is up to date');
  });

  test('two `appstore migrate` at once on an empty database: both succeed, each migration runs once', async () => {
    const fresh = await createTestDatabase();
    try {
      // Two processes, as two nodes starting at once (in one process SQLite's lock wait would block both).
      const results = await Promise.all([runAppstore(['migrate'], fresh.env), runAppstore(['migrate'], fresh.env)]);
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      // Each step takes the lock on its own: the two may share the steps, but each runs exactly once, in order.
      const applied = results.flatMap((r) =>
        r.stdout.trim() === 'database is up to date'
          ? []
          : r.stdout
              .trim()
              .replace(/^applied: /, '')
              .split(', '),
      );
      assert.deepEqual(applied.sort(), [...MIGRATION_NAMES]);
      for (const result of results)
        assert.match(result.stdout.trim(), /^(database is up to date|applied: [\w-]+(, [\w-]+)*)$/);
    } finally {
      await fresh.dispose();
    }
  });

  let serve: ServeProcess;
  test('a running server shows what the CLI imports, with working 304s and a new ETag on change', async () => {
    serve = await startServeProcess(database.env);
    const empty = await fetch(`${serve.url}/api/v1/categories.json`);
    assert.deepEqual(await empty.json(), []);

    const imported = await runCommand(['category', 'import', file('categories.json', CATEGORIES)], database.env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout.trim(), 'imported 2 categories: 2 created, 0 updated, 0 unchanged');
    const platforms = await runCommand(['platform', 'import', file('platforms.json', PLATFORMS)], database.env);
    assert.equal(platforms.stdout.trim(), 'imported 3 platform releases: 3 created, 0 updated, 0 unchanged');

    // Another process wrote: the server sees it within a second.
    const categories = await eventually(async () => {
      const response = await fetch(`${serve.url}/api/v1/categories.json`);
      assert.deepEqual(
        (await response.clone().json()).map((c: { id: string }) => c.id),
        ['games', 'tools'],
      );
      return response;
    });
    const etag = String(categories.headers.get('etag'));
    const listed = await (await fetch(`${serve.url}/api/v1/platforms.json`)).json();
    assert.deepEqual(
      listed.map((p: { version: string }) => p.version),
      ['31.0.0', '30.0.1'],
    );
    assert.equal(
      (await fetch(`${serve.url}/api/v1/categories.json`, { headers: { 'if-none-match': etag } })).status,
      304,
    );

    const renamed = structuredClone(CATEGORIES);
    const english = renamed[0]?.translations.en;
    assert.ok(english !== undefined);
    english.name = 'Utilities';
    const second = await runCommand(['category', 'import', file('renamed.json', renamed)], database.env);
    assert.equal(second.stdout.trim(), 'imported 2 categories: 0 created, 1 updated, 1 unchanged');
    const changed = await eventually(async () => {
      const response = await fetch(`${serve.url}/api/v1/categories.json`, { headers: { 'if-none-match': etag } });
      assert.equal(response.status, 200);
      return response;
    });
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal((await changed.json())[1].translations.en.name, 'Utilities');
  });

  test('a malformed file is refused naming the entry and field, and nothing is imported', async () => {
    const before = await fetch(`${serve.url}/api/v1/categories.json`);
    const bad = [
      { id: 'office', translations: { en: { name: 'Office' } } },
      { id: 'games', translations: { en: { name: 'Games, renamed' } } },
      { id: 'Bad Id', translations: { en: { name: 'x' } } },
    ];
    const refused = await runCommand(['category', 'import', file('bad.json', bad)], database.env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^appstore: the category file was not imported: \[2\]\.id: must be a category id/);
    const platforms = await runCommand(
      [
        'platform',
        'import',
        file('bad-platforms.json', [
          { version: '32.0.0', hasRelease: true, isSupported: true },
          { version: '32', hasRelease: true, isSupported: true },
        ]),
      ],
      database.env,
    );
    assert.equal(platforms.code, 1);
    assert.match(platforms.stderr, /\[1\]\.version: must be a version of three numbers/);

    const after = await fetch(`${serve.url}/api/v1/categories.json`);
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    assert.deepEqual(await after.json(), await before.json());
    const listed = await (await fetch(`${serve.url}/api/v1/platforms.json`)).json();
    assert.ok(!listed.some((p: { version: string }) => p.version === '32.0.0'));
  });

  test('not JSON, no such file: exit 1 with the file named', async () => {
    const notJson = await runCommand(['category', 'import', file('broken.json', '[{"id": ')], database.env);
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /broken\.json is not valid JSON/);
    const missing = await runCommand(['platform', 'import', path.join(dir, 'absent.json')], database.env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /absent\.json: no such file/);
    assert.equal(await serve.stop(), 0);
  });
});
