// What the bench's measures share: the cores (the store on one, the load on the other), starting
// and stopping the store as `npm start` runs it, wrk and curl runs, and the store's memory.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const DURATION = process.env.BENCH_SECONDS ?? '10';

/** Every process the bench started: stopped when it exits, however it exits. */
export const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});
export const f = (n: number, digits = 0): string => n.toFixed(digits);
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** The store and the reference servers run on core 0, wrk and the probes on core 1. */
export const SERVER_CORE = '0';
export const CLIENT_CORE = os.cpus().length > 1 ? '1' : '0';
/** The bench's own process (its HTTP clients, the timing) on the client core with wrk: anywhere,
 * it would take turns with the store on the store's core. */
export function pinToClientCore(): void {
  spawnSync('taskset', ['-a', '-p', '-c', CLIENT_CORE, String(process.pid)], { stdio: 'ignore' });
}

/** How `npm start` and the README's production command run the server: its memory settings (docs/listing-engine.md). */
export const PRODUCTION_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' };
export const PRODUCTION_FLAGS = [
  '--max-semi-space-size=8',
  '--no-memory-reducer',
  '--max-inlined-bytecode-size-cumulative=4600',
  '--max-inlined-bytecode-size-absolute=9200',
  '--single-threaded-gc',
  '--no-allocation-site-pretenuring',
];

/** The store on one core; `production` false runs it with Node's and glibc's defaults. */
export function startStore(
  port: number,
  dataDir: string,
  extraEnv: Record<string, string> = {},
  production = true,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  return spawnStore({
    env: {
      ...process.env,
      APPSTORE_DATA_DIR: dataDir,
      APPSTORE_PORT: String(port),
      APPSTORE_LOG_LEVEL: 'warn',
      APPSTORE_MAX_CONNECTIONS_PER_ADDRESS: '0',
      ...extraEnv,
    },
    core: SERVER_CORE,
    production,
    nodeFlags,
    stdio: 'ignore',
  });
}

/**
 * `bin/appstore.js serve`, pinned to `core` when given; `production`: with `npm start`'s flags
 * and memory settings (else Node's and glibc's defaults). Stopped when the bench exits.
 */
function spawnStore(options: {
  readonly env: NodeJS.ProcessEnv;
  readonly core?: string;
  readonly production: boolean;
  readonly nodeFlags?: readonly string[];
  readonly stdio: 'ignore' | 'pipe';
}): ChildProcess {
  const command = [
    process.execPath,
    ...(options.production ? PRODUCTION_FLAGS : []),
    ...(options.nodeFlags ?? []),
    path.join(ROOT, 'bin', 'appstore.js'),
    'serve',
  ];
  const [file = '', ...args] = options.core === undefined ? command : ['taskset', '-c', options.core, ...command];
  const child = spawn(file, args, {
    env: { ...options.env, ...(options.production ? PRODUCTION_ENV : {}) },
    stdio: options.stdio,
  });
  children.push(child);
  return child;
}

export interface WrkResult {
  readonly rps: number;
  readonly p50ms: number;
  readonly p99ms: number;
  /** Requests completed in the run. */
  readonly requests: number;
}

function parseMs(text: string): number {
  const match = /([\d.]+)\s*(us|µs|μs|ms|s)\b/.exec(text);
  if (match === null) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function wrkArguments(url: string, headers: string[], connections: number, threads: number): string[] {
  return [
    '-c',
    CLIENT_CORE,
    'wrk',
    '-t',
    String(threads),
    '-c',
    String(connections),
    '-d',
    `${DURATION}s`,
    '--latency',
    ...headers.flatMap((h) => ['-H', h]),
    url,
  ];
}

export function wrk(url: string, headers: string[], connections = 16, threads = 2): WrkResult {
  return wrkResult(execFileSync('taskset', wrkArguments(url, headers, connections, threads), { encoding: 'utf8' }));
}

/** wrk without waiting for it: two of them load two servers at once. */
export function wrkStarted(url: string, headers: string[], connections: number, threads: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    execFile('taskset', wrkArguments(url, headers, connections, threads), { encoding: 'utf8' }, (error, output) =>
      error === null ? resolve(wrkResult(output)) : reject(error),
    );
  });
}

function wrkResult(output: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 'NaN');
  // The percentiles are the lines of the latency distribution: a thread-stats column such as
  // "93.50%" at a line's end must not be taken for the 50% line.
  const percentile = (p: number) => parseMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1] ?? '');
  return {
    rps,
    p50ms: percentile(50),
    p99ms: percentile(99),
    requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 'NaN'),
  };
}

/**
 * The raw bytes as sent, on a fresh connection: undici's fetch would decompress them, and the
 * time a client takes to inflate 28 MB is not the store's.
 */
export function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

/**
 * A GET timed by curl, pinned to the client core: libcurl is what Nextcloud's servers fetch the
 * listings with, and it times the request from its first byte out to the body's last byte in,
 * the body as sent (no decompression) and thrown away. Until the eighth session of issue 31 this
 * was a Node client in the bench's own process, whose time to take in a body depended on what
 * that process had loaded: receiving the same 59 MB from a plain server took 40 to 54 ms alone
 * and 81 to 128 ms with the store's database module imported (four runs each, alternated; curl
 * 15 to 23 ms). curl also runs when the port is not open yet: a failed connection rejects.
 */
export function timeGet(
  url: string,
  encoding = 'gzip',
  extra: Record<string, string> = {},
): Promise<{ ms: number; bytes: number; etag: string; status: number }> {
  const headers = Object.entries({ 'accept-encoding': encoding, ...extra }).flatMap(([name, value]) => [
    '-H',
    `${name}: ${value}`,
  ]);
  const args = [
    '-c',
    CLIENT_CORE,
    'curl',
    '-s',
    '-o',
    '/dev/null',
    ...headers,
    '-w',
    '%{http_code} %{time_total} %{size_download} %header{etag}',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile('taskset', args, { encoding: 'utf8' }, (error, output) => {
      if (error !== null) {
        reject(error);
        return;
      }
      const [status = '', seconds = '', bytes = '', etag = ''] = output.split(' ');
      resolve({ ms: Number(seconds) * 1000, bytes: Number(bytes), etag, status: Number(status) });
    });
  });
}

export const rssOf = (pid: number): { rss: number; peak: number } => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
};

/** The CLI in a process of its own with `env` (APPSTORE_DATA_DIR, APPSTORE_DATABASE_URL), waited for without blocking this one (the /healthz probe runs meanwhile). */
export const cliWith = (env: Record<string, string>, args: string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      'taskset',
      ['-c', CLIENT_CORE, process.execPath, path.join(ROOT, 'bin', 'appstore.js'), ...args],
      { env: { ...process.env, ...env }, stdio: 'ignore' },
    );
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`appstore ${args.join(' ')} exited ${code}`)),
    );
  });

/** True once something accepts connections on the port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A start timed to the end of its first apps.json (gzip), or of the first answer at `path` (the
 * home page: `/`): from spawning the process (`ms`), and from the moment its port opens (`afterOpenMs`):
 * what comes before the port opens is Node loading the bundle and the store's start.
 */
export async function startAndTimeFirst(
  port: number,
  dataDir: string,
  extraEnv: Record<string, string> = {},
  path_ = '/api/v1/apps.json',
): Promise<{ store: ChildProcess; ms: number; afterOpenMs: number }> {
  const start = performance.now();
  const store = startStore(port, dataDir, extraEnv);
  while (!(await portOpen(port))) await new Promise((r) => setTimeout(r, 5));
  const opened = performance.now();
  const url = `http://127.0.0.1:${port}${path_}`;
  const headers: Record<string, string> = path_ === '/' ? { accept: 'text/html' } : {};
  for (;;) {
    try {
      if ((await timeGet(url, 'gzip', headers)).status === 200) {
        const end = performance.now();
        return { store, ms: end - start, afterOpenMs: end - opened };
      }
      await new Promise((r) => setTimeout(r, 20));
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Stops a store and waits for its process to end. */
export async function stopStore(store: ChildProcess): Promise<void> {
  const ended = new Promise((resolve) => store.once('exit', resolve));
  store.kill('SIGTERM');
  await ended;
}

/**
 * `bin/appstore.js serve` as `npm start` runs it (its flags and memory settings), on port 0
 * (APPSTORE_PORT in `env` says otherwise), pinned to `core` when given: resolves once it listens,
 * with its address. Its log goes to `output()`.
 */
export async function startListeningStore(
  env: Record<string, string>,
  core?: string,
): Promise<{ child: ChildProcess; origin: string; output(): string }> {
  const child = spawnStore({
    env: { APPSTORE_PORT: '0', ...env, APPSTORE_LOG_LEVEL: 'info' },
    ...(core === undefined ? {} : { core }),
    production: true,
    stdio: 'pipe',
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', () => reject(new Error(`the store exited:\n${output}`)));
  });
  return { child, origin, output: () => output };
}

/**
 * The environment of a store that takes publishes from this machine: its data in `dataDir`, the
 * test authority's chain trusted for certificates, downloads from loopback allowed, and the test
 * TLS authority trusted (the local HTTPS servers that hold the archives).
 */
export function localPublishingEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const fixtures = path.join(ROOT, 'test', 'fixtures');
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    APPSTORE_DATA_DIR: dataDir,
    APPSTORE_PORT: '0',
    APPSTORE_CA_CERT: path.join(fixtures, 'certificates', 'chain.pem'),
    APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    APPSTORE_LOG_LEVEL: 'warn',
    NODE_EXTRA_CA_CERTS: path.join(fixtures, 'tls', 'ca.crt'),
    ...extra,
  };
}
