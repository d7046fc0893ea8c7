import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LOADED_LATER, bundleFor } from '../../scripts/build.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = bundleFor();

describe('what loading the bundle loads (scripts/build.mjs, LOADED_LATER)', () => {
  it(
    'none of the packages loaded on first use is loaded by the bundle itself',
    { skip: !fs.existsSync(entry) && 'the bundle is not built' },
    () => {
      // As bin/appstore.js loads it: the packages it required are then in require's cache.
      const script = `
      import { createRequire } from 'node:module';
      const { loadBundle } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'scripts', 'load-bundle.mjs')).href)});
      loadBundle(${JSON.stringify(entry)}, 'test');
      console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const loaded = JSON.parse(run.stdout) as string[];
      assert.ok(
        loaded.some((file) => file.includes(`${path.sep}better-sqlite3${path.sep}`)),
        'the packages the bundle needs at once are seen in the cache (what this test looks at is there)',
      );
      for (const name of LOADED_LATER)
        assert.deepEqual(
          loaded.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`)),
          [],
          `${name} is loaded on first use, not with the bundle`,
        );
    },
  );
});
