import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/storage/database.ts';
import { openDatabase } from '../../src/storage/database.ts';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';

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

/**
 * A database of its own for one test: a new SQLite file in a temporary data directory, or a
 * new schema on the PostgreSQL server (selected through the URL's search_path option, so child
 * processes reach it through APPSTORE_DATABASE_URL alone).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-test-'));
  const handles: DatabaseHandle[] = [];
  let target: DatabaseTarget;
  let env: Record<string, string>;
  let dropSchema = async (): Promise<void> => undefined;
  if (POSTGRES_URL === undefined) {
    target = { kind: 'sqlite', file: path.join(dataDir, 'appstore.sqlite') };
    env = { APPSTORE_DATA_DIR: dataDir };
  } else {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    await withAdminClient((client) => client.query(`create schema ${schema}`));
    // %20, not +: libpq (pg_dump, psql) reads only percent-encoding in URIs.
    const separator = POSTGRES_URL.includes('?') ? '&' : '?';
    const url = `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    target = { kind: 'postgres', url };
    env = { APPSTORE_DATA_DIR: dataDir, APPSTORE_DATABASE_URL: url };
    dropSchema = () => withAdminClient((client) => client.query(`drop schema ${schema} cascade`)).then(() => undefined);
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
      if (migrate) await migrateToLatest(handle, new Date());
      return handle;
    },
    async dispose() {
      await Promise.all(handles.map((h) => h.close()));
      await dropSchema();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
