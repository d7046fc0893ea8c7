// Measures how long the release reader takes to refuse hostile inputs, and the peak memory of a
// process that does only that (each case runs in a fresh child process; maxRSS is the peak).
// Run: node --import tsx scripts/measure-hostile-inputs.ts
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CATEGORY_IDS } from '../src/domain/catalog/default-categories.ts';
import { readRelease } from '../src/domain/releases/read-release.ts';
import { loadXmlParser } from '../src/domain/releases/xml-document.ts';

const parseXmlDocument = await loadXmlParser();

const fixtures = path.join(import.meta.dirname, '..', 'test', 'fixtures');
const CASES: Record<string, () => Promise<unknown>> = {
  'baseline: valid archive (accepted)': () => readArchive('valid.tar.gz'),
  '1 GiB decompression bomb': () => readArchive('bomb-1gib.tar.gz'),
  '100 MB info.xml': () => readArchive('info-xml-100mb.tar.gz'),
  'billion laughs (in an archive)': () => readArchive('billion-laughs.tar.gz'),
  'external entity': async () =>
    parseXmlDocument(fs.readFileSync(path.join(fixtures, 'manifests', 'external-entity.xml')), 'info.xml'),
  'invalid UTF-8': async () =>
    parseXmlDocument(fs.readFileSync(path.join(fixtures, 'manifests', 'invalid-utf8.xml')), 'info.xml'),
  'symbolic link': () => readArchive('symlink-info-xml.tar.gz'),
  "'..' in a member name": () => readArchive('dot-dot.tar.gz'),
};

function readArchive(name: string): Promise<unknown> {
  return readRelease(fs.readFileSync(path.join(fixtures, 'archives', name)), {
    nightly: false,
    validCategories: new Set(DEFAULT_CATEGORY_IDS),
  });
}

const which = process.argv[2];
if (which !== undefined) {
  const run = CASES[which];
  if (run === undefined) throw new Error(`no case ${which}`);
  const start = performance.now();
  let outcome = 'accepted';
  try {
    await run();
  } catch (error) {
    outcome = `refused: ${(error as { detail?: string }).detail ?? String(error)}`;
  }
  const ms = performance.now() - start;
  console.log(JSON.stringify({ ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, outcome }));
} else {
  console.log('| input | time to refuse | peak RSS of the process | outcome |');
  console.log('|---|---|---|---|');
  for (const name of Object.keys(CASES)) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, name], { encoding: 'utf8' });
    const result = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as {
      ms: number;
      maxRssMiB: number;
      outcome: string;
    };
    console.log(
      `| ${name} | ${result.ms.toFixed(0)} ms | ${result.maxRssMiB.toFixed(0)} MiB | ${result.outcome.slice(0, 90)} |`,
    );
  }
}
