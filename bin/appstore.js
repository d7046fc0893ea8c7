#!/usr/bin/env node
// The `appstore` command. It runs dist/appstore.mjs, the sources bundled into one file
// (scripts/build.mjs), building it first when it is missing or older than the sources; where the
// bundle cannot be written (an install the user cannot write to, without `npm run build`), it
// loads the TypeScript sources through tsx instead, which starts a few times slower.
import { bundleIsCurrent, build, BUNDLE } from '../scripts/build.mjs';
import { pathToFileURL } from 'node:url';

let main;
try {
  if (!bundleIsCurrent()) await build();
  main = await import(pathToFileURL(BUNDLE).href);
} catch (error) {
  if (process.env.APPSTORE_DEBUG_BUILD !== undefined) console.error(error);
  const { register } = await import('tsx/esm/api');
  register();
  main = await import('../src/cli/main.ts');
}
process.exitCode = await main.runCli(process.argv.slice(2));
