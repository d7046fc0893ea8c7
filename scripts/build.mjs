// Bundles the service (src/cli/main.ts and everything it imports, packages included) into one
// file, dist/appstore.mjs, with esbuild: Node then loads one module instead of several hundred
// through the TypeScript loader, and a start takes about a third of a second instead of two
// (docs/benchmarks.md). bin/appstore.js builds it when missing or older than the sources, and
// `npm run build` builds it ahead (for an install the service cannot write to). Packages with
// native code or WebAssembly files stay outside the bundle and load from node_modules.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = path.join(ROOT, 'dist', 'appstore.mjs');
const STAMP = path.join(ROOT, 'dist', 'sources.txt');
const EXTERNAL = ['better-sqlite3', 'pg-native', 'libxml2-wasm'];

/** What the bundle is made from: every source file's path, size and time, and the installed packages. */
export function sourceFingerprint() {
  const hash = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
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

/** True when dist/appstore.mjs was built from the sources as they are now. */
export function bundleIsCurrent() {
  try {
    return fs.readFileSync(STAMP, 'utf8') === sourceFingerprint();
  } catch {
    return false;
  }
}

/** Builds dist/appstore.mjs; written under another name first, so a concurrent start never loads half a file. */
export async function build() {
  const fingerprint = sourceFingerprint();
  const { build: esbuild } = await import('esbuild');
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
  const partial = `${BUNDLE}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [path.join(ROOT, 'src', 'cli', 'main.ts')],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // Packages written as CommonJS call require(): the bundle, an ES module, gives them one.
    banner: { js: "import { createRequire as appstoreRequire } from 'node:module'; const require = appstoreRequire(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  fs.renameSync(`${partial}.map`, `${BUNDLE}.map`);
  // The map's name inside the bundle is the temporary one: point it at the final name.
  fs.writeFileSync(partial, fs.readFileSync(partial, 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${path.basename(BUNDLE)}.map`));
  fs.renameSync(partial, BUNDLE);
  fs.writeFileSync(`${STAMP}.${process.pid}.tmp`, fingerprint);
  fs.renameSync(`${STAMP}.${process.pid}.tmp`, STAMP);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  console.log(`built ${path.relative(process.cwd(), BUNDLE)}`);
}
