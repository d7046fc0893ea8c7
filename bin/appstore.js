#!/usr/bin/env node
// The `appstore` command: loads the TypeScript sources through tsx, so that
// `npx appstore …` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
