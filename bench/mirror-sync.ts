// The mirror's line of `npm run bench` (issue 30): a store in mirror mode syncs the bench
// catalogue from a local upstream, as `appstore mirror sync` (the bundle) run by an operator.
//
// The upstream is nginx over TLS (the test CA, trusted through NODE_EXTRA_CA_CERTS) serving the
// bench store's own categories, platforms and apps.json, rewritten as a real upstream's: each app
// has its own certificate (CN the app id) from a code-signing root made here, and each release
// the mirror's default policy takes has an archive of ARCHIVE_KIB random bytes, signed RSA-SHA512
// with the app's key. nginx answers If-None-Match with 304s, as the original does. Then: a first
// sync into an empty store (everything downloaded, checked, stored and applied), and a second
// one (nothing changed upstream). Peak memory is GNU time's maximum resident set size.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parsePlatformFile } from '../src/domain/catalog/import-file.ts';
import { inBatches } from '../src/domain/in-batches.ts';
import type { ListedApp, ListedRelease } from '../src/domain/listings/app-listing.ts';
import { DEFAULT_MIRROR_POLICY, chooseReleases } from '../src/domain/mirror/mirror-policy.ts';
import type { MirrorPolicy } from '../src/domain/mirror/mirror-policy.ts';
import { parseUpstreamListing } from '../src/domain/mirror/upstream-listing.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const TLS = path.join(ROOT, 'test', 'fixtures', 'tls');
const run = promisify(execFile);
export const ARCHIVE_KIB = 1024;

/** What a sync takes: the default policy's releases (`latest`), or every release (`all`), each an archive of `archiveKiB`. */
export interface MirrorSyncRun {
  readonly releases: MirrorPolicy['releases'];
  readonly archiveKiB: number;
}

export interface MirrorSyncBench {
  readonly apps: number;
  readonly releases: number;
  readonly archiveKiB: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly resyncSeconds: number;
  readonly resyncPeakRssMiB: number;
  readonly appsJsonBytes: number;
}

/** The fields of a listed app the upstream rewrites (the listing's own type, made writable). */
type Writable<T> = { -readonly [K in keyof T]: T[K] };
type RewrittenApp = Writable<Omit<ListedApp, 'releases'>> & { releases: Writable<ListedRelease>[] };

/** `appstore mirror sync` under GNU time: its output, the wall time and the peak resident memory. */
function timedSync(
  env: NodeJS.ProcessEnv,
  core: string,
): Promise<{ stdout: string; seconds: number; peakRssMiB: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/usr/bin/time',
      [
        '-f',
        'TIME %e %M',
        'taskset',
        '-c',
        core,
        process.execPath,
        '--max-semi-space-size=2',
        path.join(ROOT, 'bin', 'appstore.js'),
        'mirror',
        'sync',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      const timed = /TIME ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || timed === null) reject(new Error(`mirror sync failed (${code}):\n${stdout}\n${stderr}`));
      else resolve({ stdout, seconds: Number(timed[1]), peakRssMiB: Number(timed[2]) / 1024 });
    });
  });
}

/**
 * Builds the upstream from the bench store's listings (`documents`: the bodies of
 * categories.json, platforms.json and apps.json), serves it with nginx on `port` and syncs a new
 * store from it twice, taking what `take` says. The store runs on `core`, as in the rest of the bench.
 */
export async function benchMirrorSync(
  work: string,
  documents: { categories: string; platforms: string; apps: string },
  port: number,
  core: string,
  take: MirrorSyncRun = { releases: 'latest', archiveKiB: ARCHIVE_KIB },
): Promise<MirrorSyncBench> {
  const dir = path.join(work, `mirror-${take.releases}`);
  const policy: MirrorPolicy = { ...DEFAULT_MIRROR_POLICY, releases: take.releases };
  const www = path.join(dir, 'www');
  fs.mkdirSync(path.join(www, 'api', 'v1'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'certs'));
  const ca = path.join(dir, 'root.crt');
  const caKey = path.join(dir, 'root.key');
  const appKey = path.join(dir, 'app.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:4096',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      '/CN=Bench Code Signing Root',
      '-keyout',
      caKey,
      '-out',
      ca,
    ],
    { stdio: 'ignore' },
  );
  execFileSync('openssl', ['genrsa', '-out', appKey, '4096'], { stdio: 'ignore' });
  const key = fs.readFileSync(appKey, 'utf8');

  const apps = JSON.parse(documents.apps) as RewrittenApp[];
  const platforms = parsePlatformFile(JSON.parse(documents.platforms));
  const upstream = parseUpstreamListing(JSON.parse(documents.apps), false);
  const origin = `https://localhost:${port}`;
  // Each app's certificate: the same key (a bench shortcut), its own CN, issued by the root.
  await inBatches(
    apps.map((app, i) => ({ app, serial: 4096 + i })),
    4,
    async ({ app, serial }) => {
      const out = path.join(dir, 'certs', `${app.id}.crt`);
      await run('openssl', [
        'req',
        '-new',
        '-x509',
        '-key',
        appKey,
        '-subj',
        `/CN=${app.id}`,
        '-CA',
        ca,
        '-CAkey',
        caKey,
        '-days',
        '3650',
        '-set_serial',
        String(serial),
        '-addext',
        'basicConstraints=critical,CA:FALSE',
        '-out',
        out,
      ]);
      app.certificate = fs.readFileSync(out, 'utf8');
    },
  );
  // The releases the mirror will take get an archive and a real signature; the others keep what
  // the bench store lists (never fetched).
  let releases = 0;
  for (const parsed of upstream.apps) {
    const app = apps.find((a) => a.id === parsed.app.id);
    if (app === undefined) continue;
    for (const chosen of chooseReleases(parsed, platforms, policy)) {
      const release = app.releases.find(
        (r) => r.version === chosen.release.version && r.isNightly === chosen.release.isNightly,
      );
      if (release === undefined) continue;
      const file = path.join(www, 'archives', app.id, `${release.version}.tar.gz`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const bytes = randomBytes(take.archiveKiB * 1024);
      fs.writeFileSync(file, bytes);
      release.download = `${origin}/archives/${app.id}/${release.version}.tar.gz`;
      release.signature = sign('sha512', bytes, key).toString('base64');
      releases += 1;
    }
  }
  const appsJson = JSON.stringify(apps);
  for (const [name, body] of [
    ['apps', appsJson],
    ['appapi_apps', '[]'],
    ['categories', documents.categories],
    ['platforms', documents.platforms],
    ['discover', '[]'],
  ] as const) {
    fs.writeFileSync(path.join(www, 'api', 'v1', `${name}.json`), body);
  }
  // nginx's workers run as an unprivileged user: they must reach and read the files.
  fs.chmodSync(work, 0o755);
  execFileSync('chmod', ['-R', 'a+rX', dir]);
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/nginx.log;
events { worker_connections 256; }
http { access_log off; sendfile on; etag on; default_type application/json;
  server { listen 127.0.0.1:${port} ssl; ssl_certificate ${TLS}/server.crt; ssl_certificate_key ${TLS}/server.key; root ${www}; } }\n`,
  );
  const nginx = spawn('nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '65536',
      NODE_EXTRA_CA_CERTS: path.join(TLS, 'ca.crt'),
      APPSTORE_DATA_DIR: path.join(dir, 'store'),
      APPSTORE_MIRROR_ROOT_CERT: ca,
      APPSTORE_MIRROR_UPSTREAM: `${origin}/api/v1`,
      APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
      APPSTORE_PUBLIC_URL: 'https://mirror.example.org',
      APPSTORE_MIRROR_RELEASES: take.releases,
    };
    execFileSync(process.execPath, [path.join(ROOT, 'bin', 'appstore.js'), 'migrate'], { env, stdio: 'ignore' });
    const first = await timedSync(env, core);
    const taken = /(\d+) releases taken \(([\d.]+) MiB\)/.exec(first.stdout);
    if (taken === null || Number(taken[1]) !== releases)
      throw new Error(`the first sync took ${taken?.[1]} of ${releases} releases:\n${first.stdout}`);
    const again = await timedSync(env, core);
    if (!/ 0 releases taken/.test(again.stdout))
      throw new Error(`the second sync took releases again:\n${again.stdout}`);
    return {
      apps: upstream.apps.length,
      releases,
      archiveKiB: take.archiveKiB,
      bytes: releases * take.archiveKiB * 1024,
      seconds: first.seconds,
      peakRssMiB: first.peakRssMiB,
      resyncSeconds: again.seconds,
      resyncPeakRssMiB: again.peakRssMiB,
      appsJsonBytes: Buffer.byteLength(appsJson),
    };
  } finally {
    nginx.kill('SIGTERM');
  }
}
