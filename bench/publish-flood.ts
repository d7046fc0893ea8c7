// The publish flood's line of `npm run bench` (issue 49): 60 publishes of 20 MiB archives started
// at once against one store (the bundle, as `npm start` runs it), and its resident memory before,
// during and after, read from /proc every 20 ms. 20 accounts, each the owner or a co-maintainer of
// the app, start three each (the most one account may have under way); the archives come from a
// local HTTPS server (the test CA, trusted through NODE_EXTRA_CA_CERTS) at about 100 MB/s, and are
// random bytes, refused once read, as the 60 jobs of the trial were. The same flood runs a second
// time with the bounds lifted (APPSTORE_PUBLISHES_AT_ONCE=1000), as the store was before them.
//
// Alone: node --import tsx bench/publish-flood.ts
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { localPublishingEnv, startListeningStore } from './tools.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CERTS = path.join(ROOT, 'test', 'fixtures', 'certificates');
const TLS = path.join(ROOT, 'test', 'fixtures', 'tls');
const BIN = path.join(ROOT, 'bin', 'appstore.js');
const ACCOUNTS = 20;
const PER_ACCOUNT = 3;
const ARCHIVE_BYTES = 20 * 1024 * 1024 - 4096;

export interface PublishFloodRun {
  readonly label: string;
  readonly publishes: number;
  readonly idleMiB: number;
  readonly peakMiB: number;
  readonly afterMiB: number;
  /** After the store went on answering (200 requests of its pages and listings): its next collections ran. */
  readonly servingMiB: number;
  readonly seconds: number;
  readonly statuses: Readonly<Record<string, number>>;
}

const rssMiB = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A local HTTPS server sending `bytes` at about 100 MB/s (64 KiB every 0.6 ms, in turns with the others). */
async function slowArchiveServer(bytes: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = https.createServer(
    { key: fs.readFileSync(path.join(TLS, 'server.key')), cert: fs.readFileSync(path.join(TLS, 'server.crt')) },
    (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length });
      let at = 0;
      const next = (): void => {
        if (at >= bytes.length) return void response.end();
        const end = Math.min(at + 65536, bytes.length);
        const more = response.write(bytes.subarray(at, end));
        at = end;
        if (more) setTimeout(next, 0.6);
        else response.once('drain', next);
      };
      next();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/archive.tar.gz`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function flood(label: string, extraEnv: Record<string, string>, archiveUrl: string): Promise<PublishFloodRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-flood-'));
  const env = localPublishingEnv(dataDir, extraEnv);
  const cli = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' }).trim();
  cli('migrate');
  const tokens: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    cli('user', 'add', `dev${i}`, '--no-password');
    tokens.push(cli('user', 'token', `dev${i}`));
  }
  // As `npm start` runs the store (package.json).
  const { child, origin } = await startListeningStore(env);
  try {
    const post = (token: string, url: string, body: unknown) =>
      fetch(`${origin}${url}`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const registered = await post(tokens[0] ?? '', '/api/v1/apps', {
      certificate: fs.readFileSync(path.join(CERTS, 'news.crt'), 'utf8'),
      signature: fs.readFileSync(path.join(CERTS, 'news.sig'), 'utf8'),
    });
    if (registered.status !== 201) throw new Error(`registering news: ${registered.status} ${await registered.text()}`);
    for (let i = 1; i < ACCOUNTS; i++) cli('app', 'maintainer', 'add', 'news', `dev${i}`);
    const pid = child.pid ?? 0;
    await sleep(2000);
    const idleMiB = rssMiB(pid);
    let peakMiB = idleMiB;
    const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB(pid))), 20);
    const started = performance.now();
    const statuses: Record<string, number> = {};
    await Promise.all(
      tokens.flatMap((token) =>
        Array.from({ length: PER_ACCOUNT }, async () => {
          const answer = await post(token, '/api/v1/apps/releases', { download: archiveUrl, signature: 'AAAA' });
          const { code } = (await answer.json()) as { code?: string };
          const key = `${answer.status} ${code ?? ''}`.trim();
          statuses[key] = (statuses[key] ?? 0) + 1;
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    await sleep(3000);
    clearInterval(sampler);
    const afterMiB = rssMiB(pid);
    for (let i = 0; i < 200; i++)
      await (await fetch(`${origin}${i % 2 === 0 ? '/' : '/api/v1/apps.json'}`)).arrayBuffer();
    await sleep(1000);
    return {
      label,
      publishes: ACCOUNTS * PER_ACCOUNT,
      idleMiB,
      peakMiB,
      afterMiB,
      servingMiB: rssMiB(pid),
      seconds,
      statuses,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Both floods: with the store's bounds (the defaults), and with them lifted. */
export async function benchPublishFlood(): Promise<PublishFloodRun[]> {
  const archive = await slowArchiveServer(randomBytes(ARCHIVE_BYTES));
  try {
    return [
      await flood('bounded (defaults: 3 at once, 3 per account)', {}, archive.url),
      await flood('unbounded (APPSTORE_PUBLISHES_AT_ONCE=1000)', { APPSTORE_PUBLISHES_AT_ONCE: '1000' }, archive.url),
    ];
  } finally {
    await archive.close();
  }
}

export function publishFloodTable(runs: readonly PublishFloodRun[]): string {
  const f = (n: number) => n.toFixed(0);
  return [
    '| store | publishes | RSS idle | RSS peak | peak − idle | 3 s after | after 200 more requests | all answered in | answers |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (run) =>
        `| ${run.label} | ${run.publishes} | ${f(run.idleMiB)} MiB | ${f(run.peakMiB)} MiB | **${f(run.peakMiB - run.idleMiB)} MiB** | ${f(run.afterMiB)} MiB | ${f(run.servingMiB)} MiB | ${run.seconds.toFixed(1)} s | ${Object.entries(
          run.statuses,
        )
          .map(([status, count]) => `${count}× ${status}`)
          .join(', ')} |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(publishFloodTable(await benchPublishFlood()));
}
