import path from 'node:path';

/** Where the database is: a SQLite file, or a PostgreSQL URL (APPSTORE_DATABASE_URL, APPSTORE_DATA_DIR). */
export type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** The SQLite file's name in APPSTORE_DATA_DIR. */
export const SQLITE_FILE_NAME = 'appstore.sqlite';

/** APPSTORE_DATABASE_URL: unset, SQLite in the data directory; else a postgres:// URL naming a database. */
export function parseDatabaseUrl(raw: string | undefined, dataDir: string, problems: string[]): DatabaseTarget {
  const sqlite: DatabaseTarget = { kind: 'sqlite', file: path.join(dataDir, SQLITE_FILE_NAME) };
  if (raw === undefined) return sqlite;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push('APPSTORE_DATABASE_URL: not a URL; expected postgres://user:password@host:port/database');
    return sqlite;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    problems.push(
      `APPSTORE_DATABASE_URL: scheme '${url.protocol.replace(/:$/, '')}' is not supported; use postgres://… (or leave it unset for SQLite in APPSTORE_DATA_DIR)`,
    );
    return sqlite;
  }
  if (url.pathname.replace(/^\//, '') === '') {
    problems.push('APPSTORE_DATABASE_URL: the URL names no database (postgres://host/DATABASE)');
  }
  return { kind: 'postgres', url: raw };
}
