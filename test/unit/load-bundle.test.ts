import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LOADER = pathToFileURL(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'load-bundle.mjs'),
).href;

/** Loads `entry` in a process of its own (as bin/appstore.js would), then keeps its compiled code. */
function load(entry: string): { usedCache: boolean; answer: string; stderr: string } {
  const script = `
    const { loadBundle } = await import(${JSON.stringify(LOADER)});
    const bundle = loadBundle(${JSON.stringify(entry)}, 'test');
    const answer = await bundle.exports.answer();
    bundle.keepCompiledCode();
    console.log(JSON.stringify({ usedCache: bundle.usedCache, answer }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return { ...(JSON.parse(run.stdout) as { usedCache: boolean; answer: string }), stderr: run.stderr };
}

describe('the bundle loaded with the code an earlier process compiled (scripts/load-bundle.mjs)', () => {
  it('a first load writes the cache, the next uses it, and one V8 refuses is written again', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-load-bundle-'));
    try {
      const entry = path.join(dir, 'main.cjs');
      // A CommonJS bundle that requires a built-in module and imports an ES module by import().
      fs.writeFileSync(path.join(dir, 'part.mjs'), 'export const word = "imported";\n');
      fs.writeFileSync(
        entry,
        `const os = require('node:os');
         exports.answer = async () => [typeof os.cpus, (await globalThis[Symbol.for("appstore.importPackage")](${JSON.stringify(pathToFileURL(path.join(dir, 'part.mjs')).href)})).word, __filename === ${JSON.stringify(entry)}].join(' ');`,
      );
      const caches = () => fs.readdirSync(dir).filter((name) => name.startsWith('code-cache-test-'));
      const first = load(entry);
      assert.equal(first.answer, 'function imported true', 'require, import() and __filename work');
      assert.equal(first.usedCache, false);
      assert.equal(first.stderr, '', 'no warning about the loader on standard error');
      assert.equal(caches().length, 1, 'the cache is written');
      assert.equal(load(entry).usedCache, true, 'and used by the next process');

      fs.writeFileSync(path.join(dir, caches()[0] ?? ''), 'not a code cache');
      assert.equal(load(entry).usedCache, false, 'a cache V8 refuses is not used');
      assert.equal(load(entry).usedCache, true, 'and was written again');

      fs.appendFileSync(entry, '\nexports.more = 1;\n');
      assert.equal(load(entry).usedCache, false, 'a changed bundle does not use the old cache');
      assert.equal(load(entry).usedCache, true);
      assert.equal(caches().length, 1, 'one cache per role and flags');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
