// Bundles the service (src/cli/main.ts and everything it imports, packages included) with
// esbuild into dist/<fingerprint>/main.mjs and a few chunks loaded on demand (the password
// estimator's dictionaries, the XML parser): Node then loads one module instead of several
// hundred through the TypeScript loader, and a start takes about a third of a second instead of
// two (docs/benchmarks.md). The directory is named after the sources it was built from, so a
// build never replaces files a running process may still load. bin/appstore.js builds it when
// missing; `npm run build` builds it ahead (for an install the service cannot write to).
// Packages with native code or WebAssembly files (sqlite, libxml2, sharp's libvips) stay outside and load from node_modules.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
export const EXTERNAL = ['better-sqlite3', 'pg-native', 'libxml2-wasm', 'sharp'];
/** Builds kept besides the newest: a process started from an older one may still load its chunks. */
const KEEP_BUILDS = 2;

/** What the bundle is made from: every source file's path, size and time, and the installed packages. */
export function sourceFingerprint() {
  const hash = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if ((entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) || entry.name.endsWith('.json')) {
        const stat = fs.statSync(full);
        hash.update(`${path.relative(ROOT, full)} ${stat.size} ${stat.mtimeMs}\n`);
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  for (const file of ['package.json', 'package-lock.json', path.join('node_modules', '.package-lock.json')]) {
    const stat = fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false });
    hash.update(`${file} ${stat?.size ?? 0} ${stat?.mtimeMs ?? 0}\n`);
  }
  return hash.digest('hex');
}

/** The bundle's entry for the sources as they are now (it may not be built yet). */
export function bundleFor(fingerprint = sourceFingerprint()) {
  return path.join(DIST, fingerprint.slice(0, 16), 'main.mjs');
}

/** Builds the bundle of the sources as they are now and returns its entry; written under another name first, so a concurrent start never loads half of it. */
export async function build() {
  const fingerprint = sourceFingerprint();
  const entry = bundleFor(fingerprint);
  if (fs.existsSync(entry)) return entry;
  const { build: esbuild } = await import('esbuild');
  const partial = path.join(DIST, `.build-${process.pid}-${Date.now()}`);
  await esbuild({
    entryPoints: { main: path.join(ROOT, 'src', 'cli', 'main.ts') },
    outdir: partial,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // Packages written as CommonJS call require(): the bundle, ES modules, gives them one.
    banner: {
      js: "import { createRequire as appstoreRequire } from 'node:module'; const require = appstoreRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  try {
    fs.renameSync(partial, path.dirname(entry));
  } catch (error) {
    // Another process built the same sources meanwhile: theirs is as good.
    fs.rmSync(partial, { recursive: true, force: true });
    if (!fs.existsSync(entry)) throw error;
  }
  pruneOldBuilds(path.dirname(entry));
  return entry;
}

/** Removes all but the newest builds (and the one just made). */
function pruneOldBuilds(current) {
  const builds = fs
    .readdirSync(DIST, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && path.join(DIST, entry.name) !== current)
    .map((entry) => ({ dir: path.join(DIST, entry.name), time: fs.statSync(path.join(DIST, entry.name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const old of builds.slice(KEEP_BUILDS - 1)) fs.rmSync(old.dir, { recursive: true, force: true });
}

/**
 * Loads the bundle's entry and every chunk, as a start and the first use of each lazily loaded
 * part would: a chunk esbuild could not make loadable fails here, not in front of a user.
 */
export async function verify(entry) {
  const chunks = path.join(path.dirname(entry), 'chunks');
  const files = [
    entry,
    ...fs
      .readdirSync(chunks)
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => path.join(chunks, name)),
  ];
  for (const file of files) await import(pathToFileURL(file).href);
  return files.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = await build();
  console.log(`built ${path.relative(process.cwd(), entry)}`);
  if (process.argv.includes('--verify')) console.log(`loaded the entry and ${(await verify(entry)) - 1} chunks`);
}
