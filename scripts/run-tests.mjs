#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner, compiled once with esbuild
// (scripts/build-tests.mjs) rather than through tsx in every test file's process.
// Extra arguments are passed on (for example a file list, or --test-name-pattern=…).
// APPSTORE_TEST_DATABASE_URL=postgres://… runs the same suite on PostgreSQL.
// --long (`npm run test:long`) runs the files with long randomized and statistical runs
// (test/helpers/long-runs.ts) with those runs at full size.
// --with-long runs the whole suite with those runs at full size (`.ci/run` on PostgreSQL): each
// file once, instead of `npm test` then `npm run test:long`.
// --database-only runs only the files that reach the test database (`.ci/run` on PostgreSQL,
// after the whole suite on SQLite).
// The bundle users run (bin/appstore.js) is built from this checkout first: the tests that start
// the command run it, and may not fall back to the sources (APPSTORE_BUNDLE=required).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from './build.mjs';
import { allTestFiles, buildTests, compiledTestFile, writeGroup } from './build-tests.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const named = args.filter((arg) => !arg.startsWith('--'));
const long = args.includes('--long');
const withLong = args.includes('--with-long') && !long;
const databaseOnly = args.includes('--database-only');
const OWN_FLAGS = ['--long', '--with-long', '--database-only'];
const flags = args.filter((arg) => arg.startsWith('--') && !OWN_FLAGS.includes(arg));
const sources = new Map();
/** A test file's source, read once (the choices below look at it several times). */
const source = (file) => {
  if (!sources.has(file)) sources.set(file, fs.readFileSync(path.join(root, file), 'utf8'));
  return sources.get(file);
};
const longRuns = (file) => source(file).includes('helpers/long-runs.ts');
const given =
  named.length > 0
    ? named.map((file) => path.relative(root, path.resolve(file)))
    : allTestFiles().filter((file) => !long || longRuns(file));
try {
  const entry = await build();
  console.log(`the tests run the bundle ${path.relative(root, entry)}`);
} catch (error) {
  console.error(
    'the bundle could not be built: the tests that start bin/appstore.js would run something else than users get',
  );
  console.error(error);
  process.exit(1);
}
let reachingDatabase;
try {
  reachingDatabase = await buildTests(given);
} catch (error) {
  console.error('the tests could not be compiled');
  console.error(error);
  process.exit(1);
}
// --database-only (`.ci/run`'s PostgreSQL run, after the SQLite one): only the files that reach
// the test database; the others (unit tests, the checks of deploy/ and of real certificates) ran
// on SQLite already and would do the same again.
const files = databaseOnly ? given.filter((file) => reachingDatabase.includes(file)) : given;
// Statistical timing runs (marked `// timing: run alone`) measure differences of a few
// milliseconds: in a long run they go first, on their own, not beside Chromium and the other
// long runs, whose load on this 2-core machine moved their medians by 20 to 30 ms.
const alone =
  (long || withLong) && named.length === 0 ? files.filter((file) => source(file).includes('// timing: run alone')) : [];
// The files the rest of the run shares out (with --with-long, all but those run alone first).
const pool = withLong ? files.filter((file) => !alone.includes(file)) : files;
// The whole suite runs the unit tests (beside the sources and under test/unit/) in one process:
// they share no state and each took longer to start than to run.
const isUnit = (file) => file.startsWith(`src${path.sep}`) || file.startsWith(path.join('test', 'unit'));
// Integration test files that neither drive Chromium nor start processes share processes too, in
// two groups: each group runs its files one after the other, beside the rest.
const isLight = (file) =>
  !isUnit(file) &&
  !/helpers\/(browser|serve-process|nginx)\.ts|runAppstore\(|spawn\(/.test(source(file)) &&
  source(file).length < 20000;
const light = pool.filter(isLight);
const usesBrowser = (file) => source(file).includes('helpers/browser.ts');
// Files that start processes (the command, servers) but drive no browser share one process too:
// each spends most of its time waiting for its children, and a process of its own cost half a
// second of CPU to start. Those that drive Chromium run alone.
const spawning = pool.filter((file) => !isUnit(file) && !isLight(file) && !usesBrowser(file));
const lone = pool.filter((file) => !isUnit(file) && !isLight(file) && usesBrowser(file));
// node's test runner sorts the files it is given by name and starts them in that order, as many
// at once as --test-concurrency allows: each process's file is named with its place in the order
// wanted (`00-…`), so that the longest start first and none is left running alone at the end.
const ordered = (entries) =>
  entries.map(([name, list], index) => writeGroup(`${String(index).padStart(2, '0')}-${name}`, list));
const processes =
  named.length > 0 || long
    ? files.map(compiledTestFile)
    : ordered([
        // Longest first: with --with-long the files whose long runs are at full size (a minute
        // for every language in Chromium), the groups of files that start processes (over 30 s
        // each), then the other shared groups, then the files that drive Chromium (10 to 16 s
        // each, the largest first), then the unit tests (a few seconds).
        ...(withLong ? lone.filter(longRuns).map(ownProcess) : []),
        ...groups('processes', spawning, 2),
        ...groups('integration', light, 2),
        ...lone
          .filter((file) => !(withLong && longRuns(file)))
          .sort((a, b) => source(b).length - source(a).length)
          .map(ownProcess),
        ...(pool.some(isUnit) ? [['unit', pool.filter(isUnit)]] : []),
      ]);
/** A file run in a process of its own, named after it. */
function ownProcess(file) {
  return [path.basename(file, '.test.ts'), [file]];
}
/** Files shared out, in turn, among `count` processes named `NAME-a`, `NAME-b` … */
function groups(name, list, count) {
  return Array.from({ length: Math.min(count, list.length) }, (_, index) => [
    `${name}-${String.fromCharCode(97 + index)}`,
    list.filter((_, i) => i % count === index),
  ]);
}
const target = process.env.APPSTORE_TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
console.log(
  `running ${files.length} test files on ${target}${long || withLong ? ', their long runs at full size' : ''}${
    databaseOnly ? ` (the ${given.length - files.length} that use no database left out)` : ''
  }`,
);
const run = (list) =>
  spawnSync(
    process.execPath,
    // No test asserts a wall-clock deadline (the machine is shared): a wait that never ends is ended
    // by this timeout per test, generous enough for the slowest test on a loaded machine.
    // Source maps (failures named at the TypeScript line) only for files named on the command line:
    // over the whole suite, reading them cost 10 s of CPU. A failure in the whole suite is named at
    // the line of .test-build/…mjs, which esbuild keeps readable and marks with the source's path.
    [
      ...(named.length > 0 ? ['--enable-source-maps'] : []),
      '--test',
      '--test-concurrency=3',
      '--test-timeout=300000',
      '--test-reporter=spec',
      ...flags,
      ...list,
    ],
    {
      cwd: root,
      stdio: 'inherit',
      // Passwords are hashed at scrypt's N = 2^10 instead of 2^15: a hash took 50 ms of CPU, and a
      // sixth of the suite's time went to them (src/domain/accounts/crypto.test.ts checks the default).
      env: {
        APPSTORE_PASSWORD_COST: '10',
        ...process.env,
        NODE_ENV: 'test',
        APPSTORE_BUNDLE: 'required',
        ...(long || withLong ? { APPSTORE_TEST_LONG: '1' } : {}),
      },
    },
  );
const together = processes.filter((compiled) => !alone.some((file) => compiledTestFile(file) === compiled));
const first = alone.length === 0 ? { status: 0 } : run(alone.map(compiledTestFile));
const result = first.status === 0 ? run(together) : first;
process.exit(result.status ?? 1);
