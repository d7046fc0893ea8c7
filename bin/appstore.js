#!/usr/bin/env node
// The `appstore` command. It runs the sources bundled by scripts/build.mjs (dist/<fingerprint>/),
// building them first when the sources changed since. Where the bundle cannot be built or loaded
// (an install the user cannot write to, without `npm run build`), it says so and loads the
// TypeScript sources through tsx instead, which starts a few times slower; APPSTORE_DEBUG_BUILD=1
// shows why. APPSTORE_BUNDLE=required (the tests, CI) makes that an error instead: what runs is
// then always the bundle users get.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { build, bundleFor } from '../scripts/build.mjs';

let main;
try {
  const entry = bundleFor();
  main = await import(pathToFileURL(fs.existsSync(entry) ? entry : await build()).href);
} catch (error) {
  if (process.env.APPSTORE_BUNDLE === 'required') {
    console.error(
      'appstore: the bundle could not be built or loaded, and APPSTORE_BUNDLE=required forbids running the sources instead:',
    );
    console.error(error);
    process.exit(70);
  }
  console.error(
    `appstore: running the TypeScript sources (a slower start): the bundle could not be built or loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)}). Run \`npm run build\` where the project can be written.`,
  );
  if (process.env.APPSTORE_DEBUG_BUILD !== undefined) console.error(error);
  const { register } = await import('tsx/esm/api');
  register();
  main = await import('../src/cli/main.ts');
}
process.exitCode = await main.runCli(process.argv.slice(2));
