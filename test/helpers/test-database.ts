import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/storage/database.ts';
import { openDatabase } from '../../src/storage/database.ts';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { MIGRATION_NAMES, migrateToLatest } from '../../src/storage/migrate.ts';

/** PostgreSQL URL for the suite, when it runs on PostgreSQL; SQLite otherwise. */
export const POSTGRES_URL = process.env.APPSTORE_TEST_DATABASE_URL?.trim() || undefined;
export const DIALECT = POSTGRES_URL === undefined ? 'sqlite' : 'postgres';

export interface TestDatabase {
  /** What APPSTORE_DATABASE_URL / APPSTORE_DATA_DIR must say to reach this database. */
  readonly env: Record<string, string>;
  readonly target: DatabaseTarget;
  readonly dataDir: string;
  /** Opens a handle (migrated when `migrate` is true). Handles are closed by dispose(). */
  open(options?: { migrate?: boolean }): Promise<DatabaseHandle>;
  dispose(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * Made already migrated, as a copy of a database migrated once per suite (a template database
   * on PostgreSQL, a file on SQLite), with an epoch of its own. Migrating each test's database
   * took 370 ms of PostgreSQL's time (35 ms on SQLite); a copy takes 60 ms (1 ms). Without it the
   * database is empty, as a new operator's is: for the tests of migrations and of start-ups.
   */
  readonly migrated?: boolean;
}

/**
 * A database of its own for one test: a new SQLite file in a temporary data directory, or a new
 * database on the PostgreSQL server (the URL's database name replaced, so child processes reach
 * it through APPSTORE_DATABASE_URL alone). The PostgreSQL role needs CREATEDB.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-test-'));
  const handles: DatabaseHandle[] = [];
  const migrated = options.migrated === true;
  let target: DatabaseTarget;
  let env: Record<string, string>;
  let dropDatabase = async (): Promise<void> => undefined;
  if (POSTGRES_URL === undefined) {
    const file = path.join(dataDir, 'appstore.sqlite');
    target = { kind: 'sqlite', file };
    env = { APPSTORE_DATA_DIR: dataDir };
    if (migrated) {
      fs.copyFileSync(await sqliteTemplate(), file);
      const native = new BetterSqlite3(file);
      try {
        native.prepare('update content_version set instance_id = ? where id = 1').run(epoch());
      } finally {
        native.close();
      }
    }
  } else {
    const name = `test_${randomBytes(6).toString('hex')}`;
    const template = migrated ? await postgresTemplate() : 'template1';
    await withAdminClient((client) => client.query(`create database ${name} template ${template}`));
    const url = databaseUrl(name);
    if (migrated)
      await withClient(url, (client) =>
        client.query('update content_version set instance_id = $1 where id = 1', [epoch()]),
      );
    target = { kind: 'postgres', url };
    env = { APPSTORE_DATA_DIR: dataDir, APPSTORE_DATABASE_URL: url };
    dropDatabase = () =>
      withAdminClient((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined);
  }
  // The password cost npm test chose (scripts/run-tests.mjs) reaches servers and commands alike.
  const passwordCost = process.env.APPSTORE_PASSWORD_COST;
  if (passwordCost !== undefined) env = { ...env, APPSTORE_PASSWORD_COST: passwordCost };
  return {
    env,
    target,
    dataDir,
    async open({ migrate = true } = {}) {
      const handle = openDatabase(target, { poolSize: 4 });
      handles.push(handle);
      if (migrate && !migrated) await migrateToLatest(handle, new Date());
      return handle;
    },
    async dispose() {
      await Promise.all(handles.map((h) => h.close()));
      await dropDatabase();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A new epoch, as migrateToLatest gives a new database (12 hex digits). */
const epoch = (): string => randomBytes(6).toString('hex');

/** The URL of another database on the suite's PostgreSQL server (the same role, host and options). */
function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_URL ?? '');
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Names the migrated template by what made it: the migrations' names and sources. A migration
 * edited while it is written gives another template, never a stale one.
 */
function migrationsFingerprint(): string {
  const hash = createHash('sha256').update(MIGRATION_NAMES.join('\n'));
  const folder = path.join(projectRoot(), 'src', 'storage');
  for (const file of [
    'migrate.ts',
    ...fs
      .readdirSync(path.join(folder, 'migrations'))
      .sort()
      .map((name) => path.join('migrations', name)),
  ])
    hash.update(file).update(fs.readFileSync(path.join(folder, file)));
  return hash.digest('hex').slice(0, 16);
}

function projectRoot(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'storage'))) return dir;
    if (path.dirname(dir) === dir) throw new Error('test-database: the project root was not found');
  }
}

let sqliteTemplateFile: Promise<string> | undefined;

/** A migrated SQLite file in the temporary folder, made once per fingerprint (renamed into place whole). */
function sqliteTemplate(): Promise<string> {
  return (sqliteTemplateFile ??= (async () => {
    const file = path.join(os.tmpdir(), `appstore-test-template-${migrationsFingerprint()}.sqlite`);
    if (fs.existsSync(file)) return file;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-test-template-'));
    try {
      const building = path.join(dir, 'appstore.sqlite');
      const handle = openDatabase({ kind: 'sqlite', file: building }, { poolSize: 1 });
      try {
        await migrateToLatest(handle, new Date());
      } finally {
        // The last connection's close folds the log into the file: one file to copy, no -wal.
        await handle.close();
      }
      fs.renameSync(building, file);
      return file;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })());
}

let postgresTemplateName: Promise<string> | undefined;
/** An arbitrary constant: the advisory lock under which one test process makes the template. */
const TEMPLATE_LOCK_ID = 7_310_422_0;

/**
 * A migrated template database, made once per fingerprint by whichever test process asks first
 * (the others wait on an advisory lock); templates of other fingerprints are dropped then.
 */
function postgresTemplate(): Promise<string> {
  return (postgresTemplateName ??= withAdminClient(async (client) => {
    const name = `appstore_template_${migrationsFingerprint()}`;
    await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
    try {
      const { rows } = await client.query<{ name: string }>(
        "select datname as name from pg_database where datname like 'appstore\\_template\\_%'",
      );
      if (rows.some((row) => row.name === name)) return name;
      for (const row of rows) await client.query(`drop database if exists ${row.name} with (force)`);
      const building = `${name}_b`;
      await client.query(`create database ${building}`);
      const handle = openDatabase({ kind: 'postgres', url: databaseUrl(building) }, { poolSize: 1 });
      try {
        await migrateToLatest(handle, new Date());
      } finally {
        await handle.close();
      }
      await client.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_ID]);
    }
  }));
}

function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(POSTGRES_URL ?? '', work);
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
