#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner through tsx.
// Extra arguments are passed on (for example a file list, or --test-name-pattern=…).
// APPSTORE_TEST_DATABASE_URL=postgres://… runs the same suite on PostgreSQL.
// The bundle users run (bin/appstore.js) is built from this checkout first: the tests that start
// the command run it, and may not fall back to the sources (APPSTORE_BUNDLE=required).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from './build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const given = process.argv.slice(2);
const files = given.filter((arg) => !arg.startsWith('--'));
const flags = given.filter((arg) => arg.startsWith('--'));
if (files.length === 0) {
  for (const dir of ['src', 'test']) {
    for (const entry of fs.readdirSync(path.join(root, dir), { recursive: true })) {
      if (String(entry).endsWith('.test.ts')) files.push(path.join(dir, String(entry)));
    }
  }
  files.sort();
}
try {
  const entry = await build();
  console.log(`the tests run the bundle ${path.relative(root, entry)}`);
} catch (error) {
  console.error('the bundle could not be built: the tests that start bin/appstore.js would run something else than users get');
  console.error(error);
  process.exit(1);
}
const target = process.env.APPSTORE_TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
console.log(`running ${files.length} test files on ${target}`);
const result = spawnSync(
  process.execPath,
  // No test asserts a wall-clock deadline (the machine is shared): a wait that never ends is ended
  // by this timeout per test, generous enough for the slowest test on a loaded machine.
  ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-timeout=300000', '--test-reporter=spec', ...flags, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', APPSTORE_BUNDLE: 'required' } },
);
process.exit(result.status ?? 1);
