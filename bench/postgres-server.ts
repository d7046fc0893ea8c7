// A throw-away PostgreSQL server for the bench (scripts/postgres.sh, as .ci/run starts one): on
// loopback, in a temporary folder, with the settings of a test server (fsync off: the bench
// measures the store, not the disk). Its server processes are pinned to `core` as the store is.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface BenchPostgres {
  /** The server's URL, at its database `appstore_test`. */
  readonly url: string;
  /** A new database on the server (empty, or a copy of `template`), and its URL. */
  database(name: string, template?: string): Promise<string>;
  stop(): void;
}

/** Starts the server, or says why it could not (no root to run it as user postgres, no package). */
export function startBenchPostgres(core: string): BenchPostgres | { readonly problem: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-bench-pg-'));
  const port = 30_000 + Math.floor(Math.random() * 10_000);
  const started = spawnSync(path.join(ROOT, 'scripts', 'postgres.sh'), ['start', dir, String(port)], {
    encoding: 'utf8',
  });
  if (started.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { problem: `scripts/postgres.sh could not start PostgreSQL: ${started.stderr.trim().slice(-300)}` };
  }
  const url = started.stdout.trim();
  const pidFile = path.join(dir, 'data', 'postmaster.pid');
  const postmaster = fs.readFileSync(pidFile, 'utf8').split('\n')[0] ?? '';
  // The postmaster and every backend it forks afterwards (-a: its threads; children inherit).
  spawnSync('taskset', ['-a', '-p', '-c', core, postmaster], { stdio: 'ignore' });
  for (const pid of execFileSync('pgrep', ['-P', postmaster], { encoding: 'utf8' }).split('\n').filter(Boolean))
    spawnSync('taskset', ['-a', '-p', '-c', core, pid], { stdio: 'ignore' });
  return {
    url,
    async database(name, template) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`create database ${name}${template === undefined ? '' : ` template ${template}`}`);
      } finally {
        await client.end();
      }
      const address = new URL(url);
      address.pathname = `/${name}`;
      return address.toString();
    },
    stop() {
      spawnSync(path.join(ROOT, 'scripts', 'postgres.sh'), ['stop', dir], { stdio: 'ignore' });
    },
  };
}
