#!/usr/bin/env node
// The `appstore` command. It runs the sources bundled by scripts/build.mjs (dist/<fingerprint>/),
// building them first when the sources changed since; where the bundle cannot be written (an
// install the user cannot write to, without `npm run build`), it loads the TypeScript sources
// through tsx instead, which starts a few times slower. APPSTORE_DEBUG_BUILD=1 shows why.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { build, bundleFor } from '../scripts/build.mjs';

let main;
try {
  const entry = bundleFor();
  main = await import(pathToFileURL(fs.existsSync(entry) ? entry : await build()).href);
} catch (error) {
  if (process.env.APPSTORE_DEBUG_BUILD !== undefined) console.error(error);
  const { register } = await import('tsx/esm/api');
  register();
  main = await import('../src/cli/main.ts');
}
process.exitCode = await main.runCli(process.argv.slice(2));
