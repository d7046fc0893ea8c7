/**
 * Long randomized and statistical runs: `npm test` runs them small (or not at all) to stay quick,
 * `npm run test:long` (APPSTORE_TEST_LONG=1) and `npm test -- --with-long` (`.ci/run`) at full
 * size. A file that imports this is one `npm run test:long` runs.
 */
export const LONG_RUNS = process.env.APPSTORE_TEST_LONG === '1';

/** Options for a test that runs only in `npm run test:long`: `npm test` lists it as skipped, saying where it runs. */
export const longRunOnly: { skip?: string } = LONG_RUNS
  ? {}
  : { skip: 'a long statistical run: npm run test:long runs it' };
