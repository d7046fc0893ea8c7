// A publish's own work (issue 55): 40 releases published one after the other to a store (the
// bundle, as `npm start` runs it, on one core) from a local HTTPS server, on SQLite and on
// PostgreSQL (its server on the store's core). Each answer's Server-Timing header splits the
// publish into queue, transfer, check and save; "own work" is check + save (the download is the
// developer's host's). Two archives: the smallest app (info.xml, a changelog, one PHP file) and
// a typical one (8 MiB of source text, 2.1 MiB compressed, as a mid-sized Nextcloud app ships).
//
// Alone: node --import tsx bench/publish-latency.ts
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localPublishingEnv, startListeningStore } from './tools.ts';
import { buildArchive, manifestXml, signWith } from '../test/helpers/app-archive.ts';
import { startArchiveServer } from '../test/helpers/https-archive-server.ts';
import { startBenchPostgres } from './postgres-server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CERTS = path.join(ROOT, 'test', 'fixtures', 'certificates');
const BIN = path.join(ROOT, 'bin', 'appstore.js');
const WARM_UP = 5;
const MEASURED = 40;

export interface PublishLatency {
  readonly database: string;
  readonly archive: string;
  readonly archiveBytes: number;
  /** check + save, per publish, ms. */
  readonly own: readonly number[];
  readonly check: readonly number[];
  readonly save: readonly number[];
  /** The whole request as the client saw it, ms. */
  readonly total: readonly number[];
}

/** Source-like text: lines of words, as compressible as an app's PHP and JavaScript. */
function sourceText(bytes: number): string {
  const words = ['function', 'return', 'const', 'this', 'value', 'public', 'array', 'string', '$files', 'null'];
  const lines: string[] = [];
  let size = 0;
  let seed = 7;
  while (size < bytes) {
    let line = '    ';
    for (let i = 0; i < 9; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      line += `${words[seed % words.length]}${seed % 97} `;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

async function archiveFor(kind: 'smallest' | 'typical', version: string): Promise<Buffer> {
  const files: Record<string, string | Buffer> = {
    'news/appinfo/info.xml': manifestXml({ version }),
    'news/CHANGELOG.md': `## ${version}\n- this release\n`,
    'news/lib/Application.php': '<?php\n',
  };
  if (kind === 'typical') {
    const text = sourceText(8 * 1024 * 1024);
    for (let i = 0; i < 8; i++) files[`news/js/chunk-${i}.js`] = text.slice(i * 1_048_576, (i + 1) * 1_048_576);
    files['news/img/screenshot.png'] = randomBytes(256 * 1024);
  }
  return buildArchive(files);
}

async function measure(database: string, dbEnv: Record<string, string>, serverCore: string): Promise<PublishLatency[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-publish-'));
  const env = localPublishingEnv(dataDir, dbEnv);
  const cli = (...args: string[]) => execFileSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' }).trim();
  cli('migrate');
  const categories = path.join(dataDir, 'categories.json');
  fs.writeFileSync(
    categories,
    JSON.stringify([{ id: 'multimedia', translations: { en: { name: 'Multimedia', description: '' } } }]),
  );
  cli('category', 'import', categories);
  cli('user', 'add', 'dev', '--no-password');
  const token = cli('user', 'token', 'dev');
  const { child, origin } = await startListeningStore(env, serverCore);
  const files = await startArchiveServer();
  try {
    const post = (url: string, body: unknown) =>
      fetch(`${origin}${url}`, {
        method: 'POST',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const registered = await post('/api/v1/apps', {
      certificate: fs.readFileSync(path.join(CERTS, 'news.crt'), 'utf8'),
      signature: fs.readFileSync(path.join(CERTS, 'news.sig'), 'utf8'),
    });
    if (registered.status !== 201) throw new Error(`registering news: ${registered.status} ${await registered.text()}`);
    const results: PublishLatency[] = [];
    let minor = 0;
    for (const kind of ['smallest', 'typical'] as const) {
      const own: number[] = [];
      const check: number[] = [];
      const save: number[] = [];
      const total: number[] = [];
      let size = 0;
      for (let i = 0; i < WARM_UP + MEASURED; i++) {
        minor += 1;
        const version = `1.${minor}.0`;
        const bytes = await archiveFor(kind, version);
        size = bytes.length;
        files.serve(`/${version}.tar.gz`, bytes);
        const started = performance.now();
        const answer = await post('/api/v1/apps/releases', {
          download: `${files.origin}/${version}.tar.gz`,
          signature: signWith('news', bytes),
        });
        const elapsed = performance.now() - started;
        if (answer.status !== 201) throw new Error(`publishing ${version}: ${answer.status} ${await answer.text()}`);
        const timing = Object.fromEntries(
          (answer.headers.get('server-timing') ?? '').split(', ').map((entry) => {
            const [step = '', duration = ''] = entry.split(';dur=');
            return [step, Number(duration)];
          }),
        );
        if (i < WARM_UP) continue;
        check.push(timing['check'] ?? NaN);
        save.push(timing['save'] ?? NaN);
        own.push((timing['check'] ?? NaN) + (timing['save'] ?? NaN));
        total.push(elapsed);
      }
      results.push({ database, archive: kind, archiveBytes: size, own, check, save, total });
    }
    return results;
  } finally {
    await files.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The publishes on SQLite, then on PostgreSQL (when a server can be started here). */
export async function benchPublishLatency(
  serverCore: string,
): Promise<{ runs: PublishLatency[]; postgresProblem: string | null }> {
  const runs = await measure('SQLite', {}, serverCore);
  const postgres = startBenchPostgres(serverCore);
  if ('problem' in postgres) return { runs, postgresProblem: postgres.problem };
  try {
    const url = await postgres.database('publish_latency');
    runs.push(...(await measure('PostgreSQL', { APPSTORE_DATABASE_URL: url }, serverCore)));
  } finally {
    postgres.stop();
  }
  return { runs, postgresProblem: null };
}

const percentile = (values: readonly number[], share: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))] ?? NaN;

export function publishLatencyTable(runs: readonly PublishLatency[]): string {
  const ms = (n: number) => n.toFixed(1);
  return [
    '| database | archive | own work (check + save) p50 / p90 | check p50 | save p50 | whole request p50 (with the download) |',
    '|---|---|---|---|---|---|',
    ...runs.map(
      (run) =>
        `| ${run.database} | ${run.archive} (${(run.archiveBytes / 1_048_576).toFixed(2)} MiB) | **${ms(percentile(run.own, 0.5))}** / ${ms(percentile(run.own, 0.9))} ms | ${ms(percentile(run.check, 0.5))} ms | ${ms(percentile(run.save, 0.5))} ms | ${ms(percentile(run.total, 0.5))} ms |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runs, postgresProblem } = await benchPublishLatency('0');
  console.log(publishLatencyTable(runs));
  if (postgresProblem !== null) console.log(`PostgreSQL not measured: ${postgresProblem}`);
}
