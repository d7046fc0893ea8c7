import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { CommitProbe, DatabaseHandle } from './database-handle.ts';
import type { Database } from './schema.ts';
import { holdWhileUsing } from './serving-lock.ts';
import { kyselySqlite } from './sqlite-statements.ts';
import { withUnavailableErrors } from './unavailable.ts';

/**
 * A SQLite database: one connection in WAL mode, a commit probe beside it, and (for a file) the
 * shared lock that keeps `appstore restore` from replacing the file while it is open.
 */
export function openSqlite(file: string, holdUseLock: boolean): DatabaseHandle {
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
  const db = new Kysely<Database>({
    dialect: withUnavailableErrors(new SqliteDialect({ database: kyselySqlite(native) })),
  });
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect: 'sqlite',
    listen: null,
    poolUse: () => null,
    backup: (target) => backupSqlite(native, target),
    commitProbe: probe?.commitProbe ?? null,
    readPrepared: null,
    copyRows: null,
    close: () =>
      (closing ??= (async () => {
        probe?.close();
        await db.destroy();
        // Kysely's destroy is a no-op before the first query: close the connection here too, so
        // any use after the close fails instead of writing past the released lock.
        if (native.open) native.close();
        useLock?.release();
      })()),
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

/** A SQLite database's files: the file itself, then those SQLite keeps beside it (-wal, -shm, -journal). */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
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
