import type { DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { CompiledQuery } from 'kysely';
import type { AppError } from '../errors.ts';
import { databaseUnavailable } from '../errors.ts';

/** SQLSTATE classes and codes of PostgreSQL that mean "not now", not "wrong": connection exceptions, shutdown, too many connections. */
const POSTGRES_UNAVAILABLE = /^(08...|57P01|57P02|57P03|53300|53100|58030)$/;
const NETWORK_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
/** better-sqlite3's codes for a database that is locked too long, or whose disk fails or is full. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/;
/** node-postgres says these in words only. */
const CONNECTION_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout|terminating connection/i;

/** True when an error says the database cannot answer now (down, unreachable, locked, full), as opposed to a mistake in a query. */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as { code?: unknown }).code ?? '');
  if (POSTGRES_UNAVAILABLE.test(code) || NETWORK_UNAVAILABLE.has(code) || SQLITE_UNAVAILABLE.test(code)) return true;
  const nested = (error as { errors?: unknown[] }).errors; // AggregateError: every address refused
  if (Array.isArray(nested) && nested.length > 0 && nested.every(isUnavailable)) return true;
  return CONNECTION_LOST.test(String((error as { message?: unknown }).message ?? ''));
}

/** The catalogue's error for it: 503 with Retry-After over HTTP, a sentence on the command line. */
function unavailableError(error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  return databaseUnavailable(
    `The database cannot answer now (${reason.slice(0, 200)}); nothing was changed. Try again in a few seconds.`,
  );
}

/** Runs database work, its "cannot answer now" errors turned into `database_unavailable`. */
export const translated = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw isUnavailable(error) ? unavailableError(error) : error;
  }
};

/**
 * A kysely dialect whose every database call turns "the database cannot answer" into the
 * catalogue's `database_unavailable` (so a PostgreSQL outage answers 503 with Retry-After on
 * every route, never 500), and leaves every other error as it was.
 */
export function withUnavailableErrors(inner: Dialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver: () => translatingDriver(inner.createDriver()),
  };
}

function translatingDriver(driver: Driver): Driver {
  const connections = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const innerOf = (connection: DatabaseConnection): DatabaseConnection => connections.get(connection) ?? connection;
  return {
    init: () => translated(() => driver.init()),
    acquireConnection: () =>
      translated(async () => {
        const connection = await driver.acquireConnection();
        const wrapped: DatabaseConnection = {
          executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
            translated(() => connection.executeQuery<R>(query)),
          streamQuery: <R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> =>
            connection.streamQuery<R>(query, chunkSize),
        };
        connections.set(wrapped, connection);
        return wrapped;
      }),
    beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
      translated(() => driver.beginTransaction(innerOf(connection), settings)),
    commitTransaction: (connection: DatabaseConnection) =>
      translated(() => driver.commitTransaction(innerOf(connection))),
    rollbackTransaction: (connection: DatabaseConnection) =>
      translated(() => driver.rollbackTransaction(innerOf(connection))),
    releaseConnection: (connection: DatabaseConnection) => driver.releaseConnection(innerOf(connection)),
    destroy: () => driver.destroy(),
  };
}
