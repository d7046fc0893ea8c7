// Bundles the service (src/cli/main.ts and everything it imports, packages included) with
// esbuild into one CommonJS file, dist/<fingerprint>/main.cjs, which bin/appstore.js runs through
// scripts/load-bundle.mjs with V8's code cache: Node then loads one file instead of several hundred
// modules through the TypeScript loader, and a start compiles almost nothing (docs/benchmarks.md).
// CommonJS because Node 20 keeps compiled code only for scripts (vm.Script's cachedData), not for
// ES modules. Parts used later (the password estimator's dictionaries, the S3 client, the mailer)
// are in the file but evaluated on first use. The directory is named after the sources it was
// built from, so a build never replaces files a running process may still load. bin/appstore.js
// builds it when missing; `npm run build` builds it ahead (for an install the service cannot
// write to). Packages with native code or WebAssembly files (sqlite, libxml2, sharp's libvips)
// stay outside and load from node_modules; libxml2-wasm, an ES module, through import().
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
/**
 * Packages the store loads on first use only (images, downloads, mail, S3, passkeys, the password
 * estimator's dictionaries: 5 MB of the 10): loaded from node_modules then, they neither lengthen
 * the bundle's source, which a process holds in memory as long as it runs (two bytes a character:
 * the pages' templates are not all ASCII), nor its load. `verify` loads each.
 */
export const LOADED_LATER = [
  'sharp',
  'undici',
  'nodemailer',
  '@aws-sdk/client-s3',
  '@simplewebauthn/server',
  '@zxcvbn-ts/core',
  '@zxcvbn-ts/language-common',
  '@zxcvbn-ts/language-en',
];
/** Left out of the bundle: packages with native code or WebAssembly files, and those above. */
export const EXTERNAL = ['better-sqlite3', 'pg-native', 'libxml2-wasm', ...LOADED_LATER];
/** Builds kept besides the newest: a process started from an older one may still load its chunks. */
const KEEP_BUILDS = 2;

/** What the bundle is made from: every source file's path, size and time, the installed packages, and this script. */
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
  // How it is bundled too: a change to this file (an option, a package left out) is a new bundle.
  for (const file of [
    'package.json',
    'package-lock.json',
    path.join('node_modules', '.package-lock.json'),
    path.join('scripts', 'build.mjs'),
  ]) {
    const stat = fs.statSync(path.join(ROOT, file), { throwIfNoEntry: false });
    hash.update(`${file} ${stat?.size ?? 0} ${stat?.mtimeMs ?? 0}\n`);
  }
  return hash.digest('hex');
}

/** The bundle's entry for the sources as they are now (it may not be built yet). */
export function bundleFor(fingerprint = sourceFingerprint()) {
  return path.join(DIST, fingerprint.slice(0, 16), 'main.cjs');
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
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Every import() as a require() (scripts/load-bundle.mjs says why; src/import-package.ts is
    // how an ES module package is imported all the same).
    supported: { 'dynamic-import': false },
    external: EXTERNAL,
    // The sources are ES modules: what they read of import.meta.url is the bundle's own address.
    define: { 'import.meta.url': 'appstoreBundleUrl' },
    banner: { js: "const appstoreBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
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
 * Runs the bundle's entry and loads every part it loads on first use, as a start and the first use
 * of each part would, twice: compiled from the source, then, in another process, from the code
 * cache the first wrote (scripts/load-bundle.mjs). A part that cannot load as esbuild made it, or
 * as the cache gives it, fails here, not in front of a user. Returns how many parts loaded.
 */
export async function verify(entry) {
  const { loadBundle } = await import('./load-bundle.mjs');
  const bundle = loadBundle(entry, 'verify');
  const parts = await bundle.exports.loadOnDemandParts(LOADED_LATER);
  bundle.keepCompiledCode();
  const again = `
    const { loadBundle } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'scripts', 'load-bundle.mjs')).href)});
    const bundle = loadBundle(${JSON.stringify(entry)}, 'verify');
    if (!bundle.usedCache) throw new Error('the code cache was not used');
    await bundle.exports.loadOnDemandParts(${JSON.stringify(LOADED_LATER)});`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', again], { encoding: 'utf8' });
  for (const name of fs.readdirSync(path.dirname(entry)))
    if (name.startsWith('code-cache-verify-')) fs.rmSync(path.join(path.dirname(entry), name));
  if (run.status !== 0) throw new Error(`the bundle failed when loaded from its code cache:\n${run.stderr}`);
  return parts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = await build();
  console.log(`built ${path.relative(process.cwd(), entry)}`);
  if (process.argv.includes('--verify'))
    console.log(
      `ran the entry and loaded its ${await verify(entry)} parts used later, compiled and from the code cache`,
    );
}
