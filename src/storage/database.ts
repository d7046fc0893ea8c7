import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import pg from 'pg';
import { remember } from '../domain/bounded-map.ts';
import type { Database } from './schema.ts';
import { holdWhileUsing } from './serving-lock.ts';
import type { HeldLock } from './serving-lock.ts';
import { withUnavailableErrors } from './unavailable.ts';

/** Where the database is: a SQLite file, or a PostgreSQL URL (config.ts reads it from the environment). */
export type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * PostgreSQL only (null on SQLite): a connection of its own that LISTENs on a channel. `onNotify`
   * hears each notification; `onLost` once, when the connection fails or ends. Closed with the handle.
   */
  readonly listen:
    | ((
        channel: string,
        onNotify: (payload: string) => void,
        onLost: (error: Error) => void,
      ) => Promise<{ stop(): Promise<void> }>)
    | null;
  /** PostgreSQL's connection pool now (null on SQLite, which has one connection). */
  readonly poolUse: () => { size: number; total: number; idle: number; waiting: number } | null;
  /**
   * SQLite only (null on PostgreSQL, whose tool is pg_dump): writes a consistent copy of the
   * database to `file` while it is in use (SQLite's online backup), then checks the copy's integrity.
   */
  readonly backup: ((file: string) => Promise<{ pages: number }>) | null;
  /**
   * SQLite only (null on PostgreSQL, and for a database in memory): a connection of its own that
   * never holds a transaction, to see other connections' commits (another process's, and this
   * one's) synchronously and at once.
   */
  readonly commitProbe: CommitProbe | null;
  /** Closes every connection; safe to call twice. */
  close(): Promise<void>;
}

/** What SQLite's commit probe offers: both synchronous, each a few microseconds. */
export interface CommitProbe {
  /** PRAGMA data_version: a number that moves whenever another connection commits. */
  dataVersion(): number;
  /** The first row of a read (prepared once per text), as committed now. */
  readRow(query: string): Record<string, unknown> | undefined;
}

export interface OpenOptions {
  /** PostgreSQL connection pool size (default 10). */
  readonly poolSize?: number;
  /**
   * SQLite: hold the shared lock that keeps `appstore restore` from replacing the file while this
   * handle is open (default true; false for the restore's own handle on the file it brings in).
   */
  readonly holdUseLock?: boolean;
}

export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): DatabaseHandle {
  const handle =
    target.kind === 'sqlite' ? openSqlite(target.file, options.holdUseLock ?? true) : openPostgres(target.url, options);
  let closing: Promise<void> | undefined;
  const listeners = new Set<pg.Client>();
  const listen: DatabaseHandle['listen'] =
    target.kind === 'sqlite'
      ? null
      : async (channel, onNotify, onLost) => {
          if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
          const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 5000 });
          let lost = false;
          const lose = (error: Error): void => {
            // Closing the handle ends the connection on purpose: that is not a loss to report.
            if (lost || closing !== undefined) return;
            lost = true;
            listeners.delete(client);
            onLost(error);
          };
          client.on('error', lose);
          client.on('end', () => lose(new Error('the listening connection ended')));
          client.on('notification', (message) => onNotify(message.payload ?? ''));
          listeners.add(client);
          try {
            await client.connect();
            await client.query(`listen ${channel}`);
          } catch (error) {
            lost = true;
            listeners.delete(client);
            await client.end().catch(() => undefined);
            throw error;
          }
          return {
            stop: async () => {
              lost = true;
              listeners.delete(client);
              await client.end().catch(() => undefined);
            },
          };
        };
  return {
    db: handle.db,
    dialect: handle.dialect,
    backup: handle.native === null ? null : (file) => backupSqlite(handle.native as BetterSqlite3.Database, file),
    poolUse: () =>
      handle.pool === null
        ? null
        : {
            size: handle.pool.options.max ?? 10,
            total: handle.pool.totalCount,
            idle: handle.pool.idleCount,
            waiting: handle.pool.waitingCount,
          },
    listen,
    commitProbe: handle.probe?.commitProbe ?? null,
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...listeners].map((client) => client.end().catch(() => undefined)));
        listeners.clear();
        handle.probe?.close();
        await handle.db.destroy();
        handle.useLock?.release();
      })()),
  };
}

interface SqliteHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  pool: null;
  native: BetterSqlite3.Database;
  probe: { commitProbe: CommitProbe; close(): void } | null;
  useLock: HeldLock | null;
}

function openSqlite(file: string, holdUseLock: boolean): SqliteHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  // First: while a restore replaces the file, nothing opens it.
  const useLock = file !== ':memory:' && holdUseLock ? holdWhileUsing(file) : null;
  let native: BetterSqlite3.Database;
  try {
    native = new BetterSqlite3(file);
  } catch (error) {
    useLock?.release();
    throw error;
  }
  native.pragma('journal_mode = WAL');
  native.pragma('synchronous = NORMAL');
  native.pragma('foreign_keys = ON');
  // Another process (the CLI, a second server) may hold the write lock for a moment.
  native.pragma('busy_timeout = 5000');
  const probe = file === ':memory:' ? null : openCommitProbe(file);
  return {
    db: new Kysely<Database>({ dialect: withUnavailableErrors(new SqliteDialect({ database: kyselySqlite(native) })) }),
    dialect: 'sqlite',
    pool: null,
    native,
    probe,
    useLock,
  };
}

/**
 * A second connection that only reads, one statement at a time. The main connection may be in a
 * transaction (kysely runs them on it while other requests wait); this one never is, so what it
 * reads is always what is committed, and PRAGMA data_version on it moves with every commit made
 * through any other connection, this process's own included.
 */
function openCommitProbe(file: string): { commitProbe: CommitProbe; close(): void } {
  const connection = new BetterSqlite3(file);
  connection.pragma('busy_timeout = 5000');
  const dataVersion = connection.prepare('PRAGMA data_version').pluck();
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    commitProbe: {
      dataVersion: () => dataVersion.get() as number,
      readRow: (query) => {
        let statement = statements.get(query);
        if (statement === undefined) statements.set(query, (statement = connection.prepare(query)));
        return statement.get() as Record<string, unknown> | undefined;
      },
    },
    close: () => connection.close(),
  };
}

/** Prepared statements kept per connection, by their SQL: cleared when full. */
const STATEMENTS_KEPT = 512;

/**
 * The connection as Kysely drives it. SQLite cannot bind JavaScript booleans; they are stored as
 * 1/0, like SQLite's TRUE and FALSE. Kysely prepares every query it runs; the statements are kept
 * by their SQL, so a query run again (a listing render runs the same dozen per batch of apps) is
 * not parsed and planned again. `all` and `run` finish before they return, so a kept statement is
 * never busy when taken again; an iterator stays open across turns of the event loop, so
 * `iterate` gets a statement of its own. Rows are read as arrays (`keptStatement`).
 */
export function kyselySqlite(native: BetterSqlite3.Database): SqliteDatabase {
  const convert = (parameters: ReadonlyArray<unknown>): unknown[] =>
    parameters.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
  const kept = new Map<string, KeptStatement>();
  const statementFor = (query: string): KeptStatement =>
    kept.get(query) ?? remember(kept, query, keptStatement(native.prepare(query)), STATEMENTS_KEPT);
  return {
    close: () => native.close(),
    prepare(query: string): SqliteStatement {
      const { statement, toRow } = statementFor(query);
      return {
        reader: statement.reader,
        all:
          toRow === null
            ? (parameters) => statement.all(convert(parameters))
            : (parameters) => (statement.all(convert(parameters)) as unknown[][]).map(toRow),
        run: (parameters) => statement.run(convert(parameters)),
        iterate: (parameters) => native.prepare(query).iterate(convert(parameters)),
      };
    },
  };
}

interface KeptStatement {
  readonly statement: BetterSqlite3.Statement;
  /** Makes a row object of a raw row, for a statement that returns rows; null for one that does not. */
  readonly toRow: ((values: unknown[]) => Record<string, unknown>) | null;
}

/**
 * A statement whose rows are read as arrays and made objects here: better-sqlite3 makes each row
 * object in C++, a property at a time, which took two fifths of the time to read a render's
 * release rows (19,800 rows of 16 columns: about 100 ms against 60 ms this way). The objects are
 * the same: a property per column in order, a later column of the same name winning (and a column
 * named `__proto__` goes through the prototype's setter in both).
 */
function keptStatement(statement: BetterSqlite3.Statement): KeptStatement {
  if (!statement.reader) return { statement, toRow: null };
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  return { statement, toRow: rowMaker(names) };
}

type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * The function that makes a statement's row objects: one object literal with a property per
 * column, compiled once per statement. Every row of a statement then has one shape, made in one
 * allocation; setting the properties by name in a loop made V8 look each one up in a megamorphic
 * cache (a render's 80,000 rows: about 5 % of its instructions, by callgrind). The names are
 * written as JSON string literals, which JavaScript reads back as the same strings whatever they
 * hold. A literal names `__proto__` once at most; a statement with two such columns (only a
 * query written to do so) is made property by property.
 */
export function rowMaker(names: readonly string[]): RowMaker {
  if (names.filter((name) => name === '__proto__').length > 1) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < names.length; index++) row[names[index] as string] = values[index];
      return row;
    };
  }
  const properties = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `'use strict'; return { ${properties.join(', ')} };`) as RowMaker;
}

function openPostgres(
  url: string,
  options: OpenOptions,
): { db: Kysely<Database>; dialect: Dialect; pool: pg.Pool; native: null; probe: null; useLock: null } {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
  });
  // A connection that breaks (a server restart, a network cut) must not crash the process: an idle
  // one is reported on the pool, one in use on itself (its query fails: 503, and the pool drops it).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return {
    db: new Kysely<Database>({ dialect: withUnavailableErrors(new PostgresDialect({ pool })) }),
    dialect: 'postgres',
    pool,
    native: null,
    probe: null,
    useLock: null,
  };
}

/** A SQLite database's files: the file itself, then those SQLite keeps beside it (-wal, -shm, -journal). */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

/** True when the database answers a trivial query. */
export async function isDatabaseReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * SQLite's online backup into a new file beside the target, renamed into place once complete and
 * checked: a reader never sees half a copy. Writers go on meanwhile; the copy is the database as
 * of the backup's last step.
 */
async function backupSqlite(native: BetterSqlite3.Database, file: string): Promise<{ pages: number }> {
  const partial = `${file}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  try {
    // Readable by the owner only, whatever the umask: the copy holds sealed keys, hashes, addresses.
    fs.closeSync(fs.openSync(partial, 'wx', 0o600));
    fs.chmodSync(partial, 0o600);
    const { totalPages } = await native.backup(partial);
    const copy = new BetterSqlite3(partial);
    try {
      // One self-contained file: no -wal or -shm beside it.
      copy.pragma('journal_mode = DELETE');
      const result = copy.pragma('integrity_check', { simple: true });
      if (result !== 'ok') throw new Error(`the copy failed its integrity check: ${String(result)}`);
    } finally {
      copy.close();
    }
    fs.renameSync(partial, file);
    return { pages: totalPages };
  } finally {
    for (const leftover of sqliteFiles(partial)) fs.rmSync(leftover, { force: true });
  }
}
