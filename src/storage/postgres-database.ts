import { createRequire } from 'node:module';
import type pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { DatabaseHandle, OpenOptions } from './database-handle.ts';
import { binaryCopyReader } from './postgres-copy-out.ts';
import type { Database } from './schema.ts';
import { translated, withUnavailableErrors } from './unavailable.ts';

/**
 * The pg package, loaded when a PostgreSQL database is opened: loading it builds a fetch Response
 * (its Cloudflare check), which loads Node's own undici, 25 ms of every start on SQLite too (issue 55).
 */
const loadPg = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/**
 * A PostgreSQL database: a connection pool (OpenOptions.poolSize, default 10), and connections of
 * their own for LISTEN. A connection that breaks (a server restart, a network cut) must not crash
 * the process: an idle one is reported on the pool, one in use on itself (its query fails: 503,
 * and the pool drops it).
 */
export function openPostgres(url: string, options: OpenOptions): DatabaseHandle {
  const { Pool, Client } = loadPg();
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: withUnavailableErrors(new PostgresDialect({ pool })) });
  const copyRows = binaryCopyReader(pool);
  let closing: Promise<void> | undefined;
  const listeners = new Set<pg.Client>();
  const listen: NonNullable<DatabaseHandle['listen']> = async (channel, onNotify, onLost) => {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
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
      fence: async () => {
        await client.query('');
      },
    };
  };
  return {
    db,
    dialect: 'postgres',
    listen,
    poolUse: () => ({
      size: pool.options.max ?? 10,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    backup: null,
    commitProbe: null,
    readPrepared: (name, text) =>
      translated(async () => ((await pool.query({ name, text })).rows as Record<string, unknown>[])[0]),
    copyRows: (query, values, columns) => translated(() => copyRows(query, values, columns)),
    close: () =>
      (closing ??= (async () => {
        await Promise.all([...listeners].map((client) => client.end().catch(() => undefined)));
        listeners.clear();
        await db.destroy();
        // Kysely leaves a pool it never used open (its destroy is a no-op before the first query),
        // and a query after the close would then open a connection nothing ends: end it here, so
        // any use after the close fails.
        if (!pool.ending) await pool.end();
      })()),
  };
}
