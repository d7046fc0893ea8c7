// A start's flame graph (issue 55): the store of a checkout started with V8's CPU profiler on one
// core, on an existing database, until its first platforms.json (200); then stopped. The profile
// covers the start from Node's own bootstrap to the first answer (and the stop after it).
// Usage: node --import tsx bench/start-profile.ts DATA_DIR OUT.svg TITLE [CHECKOUT]
//   DATA_DIR: a data directory with a migrated catalogue (bench/generate-data.ts, `appstore ca init`)
//   CHECKOUT: the project folder whose bin/appstore.js runs (default: this one), built beforehand
// PROFILE_PATH=/api/v1/apps.json profiles the start to that answer instead (the first apps.json
// after a restart); APPSTORE_DATABASE_URL=postgres://… starts the store on that database.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flameGraph, heaviest } from './flame-graph.ts';
import { SERVER_CORE, portOpen } from './tools.ts';

const [dataDir, svg, title, checkout = path.resolve(import.meta.dirname, '..')] = process.argv.slice(2);
if (dataDir === undefined || svg === undefined || title === undefined) {
  console.error('usage: bench/start-profile.ts DATA_DIR OUT.svg TITLE [CHECKOUT]');
  process.exit(2);
}
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-start-profile-'));
const port = 18_990;
const first = process.env.PROFILE_PATH ?? '/api/v1/platforms.json';
const store = spawn(
  'taskset',
  [
    '-c',
    SERVER_CORE,
    process.execPath,
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
    '--cpu-prof-interval=250',
    path.join(checkout, 'bin', 'appstore.js'),
    'serve',
  ],
  {
    cwd: checkout,
    env: { ...process.env, APPSTORE_DATA_DIR: dataDir, APPSTORE_PORT: String(port), APPSTORE_LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  },
);
const started = performance.now();
while (!(await portOpen(port))) await new Promise((resolve) => setTimeout(resolve, 2));
for (;;) {
  const answer = await fetch(`http://127.0.0.1:${port}${first}`, { headers: { 'accept-encoding': 'gzip' } }).catch(
    () => null,
  );
  if (answer?.status === 200) {
    await answer.arrayBuffer();
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 2));
}
const ms = performance.now() - started;
const ended = new Promise((resolve) => store.once('exit', resolve));
store.kill('SIGTERM');
await ended;
const [profile] = fs.readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
if (profile === undefined) throw new Error('no profile was written');
const tree = flameGraph(
  path.join(profileDir, profile),
  svg,
  `${title}: spawn to the first ${path.basename(first)} in ${ms.toFixed(0)} ms`,
);
console.log(`spawn → first ${first}: ${ms.toFixed(0)} ms (with the profiler on)`);
for (const { name, share } of heaviest(tree, 15)) console.log(`${(share * 100).toFixed(1).padStart(5)} %  ${name}`);
fs.rmSync(profileDir, { recursive: true, force: true });
