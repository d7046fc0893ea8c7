// Loads the bundle (dist/<fingerprint>/main.cjs, made by scripts/build.mjs) with V8's code cache:
// the code compiled by an earlier start, kept beside the bundle, so that a start neither parses
// nor compiles the 10 MB again (Node 20 keeps no compile cache of its own; Node 22's
// module.enableCompileCache would). On one core that saved about 150 ms of a start (issue 55,
// docs/benchmarks.md).
//
// The cache is written once, by the first process that runs without a usable one: `serve` when
// its start's work is done (the first render made, the routes' schemas compiled: the code a start
// runs is then compiled and goes into the cache), any other command when it ends. V8 checks a
// cache against the source and its own version and flags and refuses one that does not match
// (the process then compiles as usual and writes a new one); the file is named after V8's tag of
// its version, flags and CPU (v8.cachedDataVersionTag), so processes started with other flags keep
// their own. A bundle directory
// that cannot be written only means no cache. The cache is code, like the bundle beside it, and
// has the same owner and place.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Runs the bundle at `entry` and returns its exports, whether the cache was used, and
 * `keepCompiledCode`, which writes the code compiled so far to the cache when there was none (or
 * V8 refused it). `role` names the cache: `serve` runs other code than the commands.
 */
export function loadBundle(entry, role) {
  const source = fs.readFileSync(entry, 'utf8');
  const cacheFile = path.join(path.dirname(entry), `code-cache-${role}-${flagsKey()}.bin`);
  const cachedData = readIfPresent(cacheFile);
  // The function CommonJS wraps a module in, written out: the bundle gets its own require.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: entry,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  // The bundle has no import() of its own (esbuild wrote each as a require()): a script's import()
  // needs a callback that V8 does not keep in the code cache (the import would fail once the code
  // came from the cache). A package that only import() can load (an ES module with top-level
  // await: libxml2-wasm) is imported through this one, made in this module (src/import-package.ts).
  globalThis[Symbol.for('appstore.importPackage')] ??= (specifier) => import(specifier);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(entry), module, entry, path.dirname(entry));
  const usedCache = cachedData !== undefined && !script.cachedDataRejected;
  let kept = usedCache;
  return {
    exports: module.exports,
    usedCache,
    keepCompiledCode() {
      if (kept) return;
      kept = true;
      const partial = `${cacheFile}.${process.pid}`;
      try {
        fs.writeFileSync(partial, script.createCachedData());
        fs.renameSync(partial, cacheFile);
      } catch (error) {
        fs.rmSync(partial, { force: true });
        if (process.env.APPSTORE_DEBUG_BUILD !== undefined)
          console.error(`appstore: the code cache could not be written (${error.message})`);
      }
    },
  };
}

/** What a cache depends on besides the source: V8's version, its flags and the CPU's features. */
function flagsKey() {
  return v8.cachedDataVersionTag().toString(16);
}

function readIfPresent(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}
