import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { AppError } from '../errors.ts';
import type { DatabaseTarget } from './database.ts';
import type { AuditEntry } from '../domain/audit/audit.ts';
import { openDatabase } from './database.ts';
import { sqliteFiles } from './sqlite-database.ts';
import { insertAudit } from './audit-row.ts';
import { readContentVersion, renewEpoch } from './repositories/content-version.repository.ts';
import { holdExclusively } from './serving-lock.ts';

export interface RestoreReport {
  /** SQLite: where the database that was replaced (with its -wal and -shm) was kept; null when there was none. */
  readonly keptAs: string | null;
  /** The restored database's new epoch: every ETag from now on names it. */
  readonly epoch: string;
}

const refuse = (detail: string): AppError => new AppError('invalid_request', detail);

/**
 * Puts a backup back in place of the database, then gives it a new epoch (so no ETag given out
 * before the restore names content of after it) and records the restore in its audit log.
 * SQLite: refused while a server or a command uses the file; the database replaced is kept beside it,
 * with its -wal and -shm files, which would otherwise be replayed over the backup.
 * PostgreSQL: pg_restore --clean in one transaction, while nodes may run: they see the new epoch
 * at once and drop what they hold.
 */
export async function restoreDatabase(
  target: DatabaseTarget,
  backupFile: string,
  now: Date,
  audit: AuditEntry,
): Promise<RestoreReport> {
  if (!fs.existsSync(backupFile)) throw refuse(`${backupFile}: no such file`);
  if (target.kind === 'sqlite') {
    if (target.file === ':memory:') throw refuse('the database is in memory: there is nothing to restore into');
    return restoreSqlite(target.file, backupFile, now, audit);
  }
  await runPgRestore(target.url, backupFile);
  return { keptAs: null, epoch: await markRestored(target, backupFile, now, audit) };
}

async function restoreSqlite(
  databaseFile: string,
  backupFile: string,
  now: Date,
  audit: AuditEntry,
): Promise<RestoreReport> {
  checkSqliteBackup(backupFile);
  const lock = holdExclusively(databaseFile);
  const incoming = `${databaseFile}.restoring-${process.pid}`;
  try {
    fs.rmSync(incoming, { force: true });
    fs.copyFileSync(backupFile, incoming);
    fs.chmodSync(incoming, 0o600);
    const epoch = await markRestored({ kind: 'sqlite', file: incoming }, backupFile, now, audit);
    // One self-contained file again (its -wal checkpointed into it), as the backup was.
    const single = new BetterSqlite3(incoming);
    single.pragma('journal_mode = DELETE');
    single.close();
    syncFile(incoming);
    let keptAs: string | null = null;
    if (fs.existsSync(databaseFile)) {
      keptAs = `${databaseFile}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
      // The -wal beside the old file holds its last commits: kept with it, never replayed over the backup.
      const kept = sqliteFiles(keptAs);
      for (const [index, name] of sqliteFiles(databaseFile).entries())
        if (fs.existsSync(name)) fs.renameSync(name, kept[index] ?? '');
    }
    fs.renameSync(incoming, databaseFile);
    syncFile(path.dirname(databaseFile));
    return { keptAs, epoch };
  } finally {
    for (const leftover of sqliteFiles(incoming)) fs.rmSync(leftover, { force: true });
    lock.release();
  }
}

/** A backup must be a whole SQLite database of this store: readable, intact, migrated. */
function checkSqliteBackup(file: string): void {
  let copy: BetterSqlite3.Database;
  try {
    copy = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw refuse(
      `${file} cannot be opened as a SQLite database (${(error as Error).message}); give a file written by \`appstore backup\``,
    );
  }
  try {
    let check: unknown;
    try {
      check = copy.pragma('integrity_check', { simple: true });
    } catch (error) {
      throw refuse(
        `${file} is not a SQLite database (${(error as Error).message}); give a file written by \`appstore backup\``,
      );
    }
    if (check !== 'ok')
      throw refuse(`${file} fails SQLite's integrity check (${String(check)}): it is damaged; take another backup`);
    const tables = new Set(
      copy.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[],
    );
    if (!tables.has('appstore_migrations') || !tables.has('content_version'))
      throw refuse(
        `${file} is a SQLite database, but not one of this store (no appstore_migrations or content_version table)`,
      );
  } finally {
    copy.close();
  }
}

/** Gives the restored database a new epoch and records the restore in its audit log; returns the epoch. */
async function markRestored(target: DatabaseTarget, backupFile: string, now: Date, audit: AuditEntry): Promise<string> {
  const handle = openDatabase(target, { poolSize: 1, holdUseLock: false });
  try {
    await handle.db.transaction().execute(async (trx) => {
      await renewEpoch(trx);
      await insertAudit(trx, { ...audit, details: { ...audit.details, file: path.basename(backupFile) } }, now);
    });
    // pg_restore brings back no planner statistics: until autovacuum gathers them (a minute or
    // more), queries are planned as for empty tables (the website's catalogue read ten times
    // slower at 600 apps, docs/benchmarks.md). Gathered now, in a few hundred milliseconds.
    if (target.kind === 'postgres') await sql`analyze`.execute(handle.db);
    return (await readContentVersion(handle.db)).instanceId;
  } finally {
    await handle.close();
  }
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * pg_restore --clean --if-exists in one transaction: the nodes see the old data or the restored
 * data, never half of it. The password goes by PGPASSWORD, never on the command line (where
 * other users of the machine could read it).
 */
function runPgRestore(url: string, backupFile: string): Promise<void> {
  const address = new URL(url);
  const password = decodeURIComponent(address.password);
  address.password = '';
  const args = [
    '--clean',
    '--if-exists',
    '--single-transaction',
    '--exit-on-error',
    '--no-owner',
    '--no-privileges',
    '--dbname',
    address.toString(),
    backupFile,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('pg_restore', args, {
      env: { ...process.env, ...(password === '' ? {} : { PGPASSWORD: password }) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (errors = `${errors}${text}`.slice(-4000)));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new AppError(
              'configuration_error',
              "pg_restore is not installed here: install PostgreSQL's client tools (apt-get install postgresql-client) and run the restore again.",
            )
          : error,
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          refuse(
            `pg_restore failed (exit ${code}); nothing was changed (it runs in one transaction): ${errors.trim().split('\n').slice(-3).join(' ')}`,
          ),
        );
    });
  });
}
