import type { Kysely } from 'kysely';
import type { DatabaseTarget } from '../config/database.ts';
import type { CopyRows } from './postgres-copy-out.ts';
import type { Database } from './schema.ts';

/*
 * What a database connection offers the rest of the store, whichever of the two dialects it is
 * (database.ts opens one: sqlite-database.ts, postgres-database.ts).
 */

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * PostgreSQL only (null on SQLite): a connection of its own that LISTENs on a channel. `onNotify`
   * hears each notification; `onLost` once, when the connection fails or ends. Closed with the handle.
   */
  readonly listen:
    | ((channel: string, onNotify: (payload: string) => void, onLost: (error: Error) => void) => Promise<Listening>)
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
  /**
   * PostgreSQL only (null on SQLite): the first row of a read without parameters, prepared once
   * per pooled connection under `name` (no query builder, no parsing and planning per call). For
   * the reads made many times a second: the content version before each GET (issue 55).
   */
  readonly readPrepared: ((name: string, query: string) => Promise<Record<string, unknown> | undefined>) | null;
  /**
   * PostgreSQL only (null on SQLite, which builds rows in its own process): the rows of a SELECT
   * as arrays, through binary COPY (postgres-binary-copy.ts). For bulk reads of bytes and numbers,
   * which a query's text result sends as text for the driver to parse (issue 55).
   */
  readonly copyRows: CopyRows | null;
  /** Closes every connection; safe to call twice. */
  close(): Promise<void>;
}

/** A LISTEN connection (DatabaseHandle.listen). */
export interface Listening {
  stop(): Promise<void>;
  /**
   * Resolves once every notification of a commit that completed before the call has been handed
   * to `onNotify`: an empty query on the listening connection. The server sends the notifications
   * it holds for a session before it answers the session's next command (PostgreSQL's NOTIFY and
   * libpq's documentation: "submit commands, even empty ones, and then check PQnotifies"), and
   * a committing session signals the listeners before its commit is acknowledged.
   */
  fence(): Promise<void>;
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

export type { DatabaseTarget };
