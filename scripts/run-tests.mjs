#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner through tsx.
// Extra arguments are passed on (for example a file list, or --test-name-pattern=…).
// APPSTORE_TEST_DATABASE_URL=postgres://… runs the same suite on PostgreSQL.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
const target = process.env.APPSTORE_TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
console.log(`running ${files.length} test files on ${target}`);
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...flags, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
