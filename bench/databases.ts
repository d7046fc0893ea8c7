// Issue 55's rows on SQLite and on PostgreSQL, measured the same way in the same run: the start,
// the first apps.json after a restart and on a fresh database, the first home page, the home and
// search pages under wrk -c8, the 304 beside a bare node:http server, and the memory after the
// pages and listings. The PostgreSQL server (bench/postgres-server.ts) runs on the store's core:
// the store and its database share one core, as the SQLite store does in its one process.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../src/storage/database.ts';
import { migrateToLatest } from '../src/storage/migrate.ts';
import { generateCatalogue } from './generate-data.ts';
import { startBenchPostgres } from './postgres-server.ts';
import {
  SERVER_CORE,
  cliWith,
  f,
  median,
  rssOf,
  startAndTimeFirst,
  startStore,
  stopStore,
  timeGet,
  waitFor,
  wrk,
  wrkStarted,
} from './tools.ts';

export interface DatabaseRows {
  readonly database: string;
  /** From spawning to the first platforms.json (200), an existing database: median and runs. */
  readonly startMs: readonly number[];
  /** From the port opening to the last byte of the first apps.json (gzip), after a restart. */
  readonly restartAppsMs: readonly number[];
  /** The same on a database whose listing parts were never saved (its first start). */
  readonly freshAppsMs: readonly number[];
  /** From the port opening to the first home page's last byte. */
  readonly homeFirstMs: readonly number[];
  /** p99 under wrk -t1 -c8, three runs each. */
  readonly homeP99: readonly number[];
  readonly searchP99: readonly number[];
  /** 304s per second, the store's / the bare server's, loaded side by side: five rounds. */
  readonly notModified: readonly number[];
  /** Resident memory after the pages' load, 60 app pages and the listings (gzip). */
  readonly rssMiB: number;
}

export interface DatabasesOptions {
  readonly port: number;
  /** A SQLite data directory with the catalogue whose listings were never made (its parts unsaved). */
  readonly pristineSqlite: string;
  /** Where the copies and the PostgreSQL store's data directory go. */
  readonly work: string;
  /** The certificate the catalogue's apps are registered with (generate-data.ts). */
  readonly certificatePem: string;
  /** The bare server's 304 (bench/bare-node.mjs), and the ETag it answers it to. */
  readonly bare: { readonly url: string; readonly etag: string };
  /** Apps in the catalogue (as many as the SQLite copy holds): 600. */
  readonly apps?: number;
}

const RUNS = 3;
const html = 'Accept: text/html';
const gzip = 'Accept-Encoding: gzip';

/** One database's rows: `fresh(i)` gives the environment of a database never started, `env` the one measured after. */
async function measure(
  database: string,
  dataDir: string,
  env: Record<string, string>,
  fresh: (run: number) => Promise<{ dataDir: string; env: Record<string, string> }>,
  options: DatabasesOptions,
): Promise<DatabaseRows> {
  const { port } = options;
  const freshAppsMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const copy = await fresh(i);
    const run = await startAndTimeFirst(port, copy.dataDir, copy.env);
    freshAppsMs.push(run.afterOpenMs);
    await stopStore(run.store);
  }
  // The first start saves the listing parts in the background: every later start reads them.
  const first = await startAndTimeFirst(port, dataDir, env);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await stopStore(first.store);
  const restartAppsMs: number[] = [];
  const homeFirstMs: number[] = [];
  const startMs: number[] = [];
  for (const [runs, firstPath, from] of [
    [restartAppsMs, '/api/v1/apps.json', 'open'],
    [homeFirstMs, '/', 'open'],
    [startMs, '/api/v1/platforms.json', 'spawn'],
  ] as const) {
    for (let i = 0; i < RUNS; i++) {
      const run = await startAndTimeFirst(port, dataDir, env, firstPath);
      runs.push(from === 'open' ? run.afterOpenMs : run.ms);
      await stopStore(run.store);
    }
  }
  const store = startStore(port, dataDir, env);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${origin}/healthz`);
    const etag = (await timeGet(`${origin}/api/v1/apps.json`)).etag;
    const homeP99 = [0, 1, 2].map(() => wrk(`${origin}/`, [html], 8, 1).p99ms);
    const searchP99 = [0, 1, 2].map(() => wrk(`${origin}/search?q=app&sort=rating`, [html], 8, 1).p99ms);
    const notModified: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [mine, bare] = await Promise.all([
        wrkStarted(`${origin}/api/v1/apps.json`, [gzip, `If-None-Match: ${etag}`], 16, 1),
        wrkStarted(options.bare.url, [gzip, `If-None-Match: ${options.bare.etag}`], 16, 1),
      ]);
      notModified.push(mine.rps / bare.rps);
    }
    for (let a = 0; a < 60; a++) await timeGet(`${origin}/apps/app_${a.toString().padStart(4, '0')}`);
    for (const listing of ['/api/v1/platform/30.0.0/apps.json', '/api/v1/appapi_apps.json', '/api/v1/categories.json'])
      await timeGet(`${origin}${listing}`);
    const rssMiB = rssOf(store.pid ?? 0).rss;
    return { database, startMs, restartAppsMs, freshAppsMs, homeFirstMs, homeP99, searchP99, notModified, rssMiB };
  } finally {
    await stopStore(store);
  }
}

/** The rows on SQLite, then on PostgreSQL (its catalogue generated the same way), or why not there. */
export async function benchDatabases(
  options: DatabasesOptions,
): Promise<{ rows: DatabaseRows[]; postgresProblem: string | null; postgresGenerateSeconds: number }> {
  const copy = (name: string): string => {
    const target = path.join(options.work, `databases-${name}`);
    fs.cpSync(options.pristineSqlite, target, { recursive: true });
    return target;
  };
  const sqliteDir = copy('sqlite');
  const rows = [
    await measure('SQLite', sqliteDir, {}, async (i) => ({ dataDir: copy(`sqlite-fresh-${i}`), env: {} }), options),
  ];
  const postgres = startBenchPostgres(SERVER_CORE);
  if ('problem' in postgres) return { rows, postgresProblem: postgres.problem, postgresGenerateSeconds: 0 };
  try {
    const started = performance.now();
    const url = await postgres.database('bench_catalogue');
    const handle = openDatabase({ kind: 'postgres', url });
    await migrateToLatest(handle, new Date());
    await generateCatalogue(handle, options.certificatePem, options.apps ?? 600);
    // As autovacuum leaves a live server's tables within a minute of such a load: with planner
    // statistics and the visibility map. The copies made from this template keep them, but their
    // activity counters start at zero, so autovacuum would never visit them: without this, the
    // website's catalogue read is planned as for empty tables (ten times slower at 600 apps).
    await sql`vacuum analyze`.execute(handle.db);
    await handle.close();
    const pgDir = path.join(options.work, 'databases-postgres');
    fs.mkdirSync(pgDir, { recursive: true });
    const env = { APPSTORE_DATABASE_URL: url };
    await cliWith({ APPSTORE_DATA_DIR: pgDir, ...env }, ['ca', 'init']);
    const postgresGenerateSeconds = (performance.now() - started) / 1000;
    // The fresh copies are made now, before any start has saved listing parts into the original.
    const freshUrls: string[] = [];
    for (let i = 0; i < RUNS; i++) freshUrls.push(await postgres.database(`bench_fresh_${i}`, 'bench_catalogue'));
    rows.push(
      await measure(
        'PostgreSQL',
        pgDir,
        env,
        async (i) => ({ dataDir: pgDir, env: { APPSTORE_DATABASE_URL: freshUrls[i] ?? url } }),
        options,
      ),
    );
    return { rows, postgresProblem: null, postgresGenerateSeconds };
  } finally {
    postgres.stop();
  }
}

const ms = (runs: readonly number[]): string => `${f(median([...runs]))} ms (${runs.map((run) => f(run)).join(', ')})`;

/** The side-by-side table: each row's target, SQLite, PostgreSQL, and PostgreSQL ÷ SQLite (the target: at most 1.5). */
export function databasesTable(rows: readonly DatabaseRows[]): string {
  const [sqlite, postgres] = rows;
  if (sqlite === undefined) return '';
  const line = (
    name: string,
    target: string,
    value: (row: DatabaseRows) => string,
    number: (row: DatabaseRows) => number,
  ): string =>
    `| ${name} | ${target} | ${value(sqlite)} | ${postgres === undefined ? '–' : value(postgres)} | ${
      postgres === undefined ? '–' : `${(number(postgres) / number(sqlite)).toFixed(2)}×`
    } |`;
  const mid = (pick: (row: DatabaseRows) => readonly number[]) => (row: DatabaseRows) => median([...pick(row)]);
  return [
    '| measure (600 apps) | target | SQLite | PostgreSQL | PostgreSQL ÷ SQLite |',
    '|---|---|---|---|---|',
    line(
      'start → first answer (platforms.json 200), existing database, from spawning',
      '< 500 ms',
      (r) => ms(r.startMs),
      mid((r) => r.startMs),
    ),
    line(
      'first apps.json after a restart, from the port opening',
      '< 300 ms',
      (r) => ms(r.restartAppsMs),
      mid((r) => r.restartAppsMs),
    ),
    line(
      'first apps.json on a fresh database, from the port opening',
      '< 800 ms',
      (r) => ms(r.freshAppsMs),
      mid((r) => r.freshAppsMs),
    ),
    line(
      'first home page after a start, from the port opening',
      '< 150 ms',
      (r) => ms(r.homeFirstMs),
      mid((r) => r.homeFirstMs),
    ),
    line(
      'home page p99 under wrk -t1 -c8',
      '< 10 ms',
      (r) => ms(r.homeP99),
      mid((r) => r.homeP99),
    ),
    line(
      'search page p99 under wrk -t1 -c8 (/search?q=app&sort=rating)',
      '< 20 ms',
      (r) => ms(r.searchP99),
      mid((r) => r.searchP99),
    ),
    line(
      '304 on apps.json, store ÷ bare node:http, loaded side by side (five rounds)',
      '≥ 0.9×',
      (r) => `${median([...r.notModified]).toFixed(2)}× (${r.notModified.map((x) => x.toFixed(2)).join(', ')})`,
      mid((r) => r.notModified),
    ),
    line(
      'resident memory after the pages, 60 app pages and four listings',
      '≤ 250 MiB',
      (r) => `${f(r.rssMiB)} MiB`,
      (r) => r.rssMiB,
    ),
  ].join('\n');
}
