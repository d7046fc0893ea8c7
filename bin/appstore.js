#!/usr/bin/env node
// The `appstore` command. It runs the sources bundled by scripts/build.mjs (dist/<fingerprint>/),
// building them first when the sources changed since, with the code compiled by an earlier start
// (scripts/load-bundle.mjs). Where the bundle cannot be built or loaded
// (an install the user cannot write to, without `npm run build`), it says so and loads the
// TypeScript sources through tsx instead, which starts a few times slower; APPSTORE_DEBUG_BUILD=1
// shows why. APPSTORE_BUNDLE=required (the tests, CI) makes that an error instead: what runs is
// then always the bundle users get.
import fs from 'node:fs';
import v8 from 'node:v8';
import { build, bundleFor } from '../scripts/build.mjs';
import { loadBundle } from '../scripts/load-bundle.mjs';

const argv = process.argv.slice(2);
// A mirror's sync and import read a whole catalogue (tens of thousands of releases) and keep a
// record of each until they are applied: V8 otherwise lets the heap grow to four times what was
// live at its last full collection before it collects again (about 400 MiB resident at 20,000
// releases, against 260 MiB so). Set before anything else runs (docs/mirror.md, Memory).
if (argv[0] === 'mirror' && (argv[1] === 'sync' || argv[1] === 'import')) v8.setFlagsFromString('--optimize-for-size');
let main;
// Called when the bundle's code worth keeping is compiled: `serve` says when; other commands, as they end.
let keepCompiledCode = () => {};
try {
  const entry = bundleFor();
  const bundle = loadBundle(fs.existsSync(entry) ? entry : await build(), argv[0] === 'serve' ? 'serve' : 'command');
  main = bundle.exports;
  keepCompiledCode = bundle.keepCompiledCode;
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
process.exitCode = await main.runCli(argv, main.processIo(keepCompiledCode));
// A server stopped before its start's work was done keeps nothing: its code would be a poor cache.
if (argv[0] !== 'serve') keepCompiledCode();
