import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/run-cli.ts';

/** The project's folders whose paths the docs name (generated ones, such as dist/, are not among them). */
const ROOTS = ['src', 'test', 'scripts', 'bench', 'bin', 'deploy', 'docs', '.ci'];
/** The folders of src/, which the docs also name without `src/` in front. */
const SOURCE_FOLDERS = fs
  .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Every file name in the project's own folders (a bare `publish-release.ts` must be one of them). */
function projectFileNames(): Set<string> {
  const names = new Set<string>();
  for (const root of ['src', 'test', 'scripts', 'bench', 'bin', 'deploy', '.ci']) {
    for (const entry of fs.readdirSync(path.join(ROOT, root), { recursive: true }))
      names.add(path.basename(String(entry)));
  }
  for (const entry of fs.readdirSync(ROOT)) names.add(entry);
  return names;
}

/**
 * What a backquoted word names, if it is a project path: `src/…` and the other roots as they
 * are, `domain/…` and the other source folders under src/, a bare `name.ts` (or .mjs, .sh) by
 * its name anywhere in the project. Placeholders (`<resource>`, `*`, `{a,b}`, `…`) are left
 * out; a `:line` or `#anchor` after a path is left off.
 */
function namedPaths(text: string): Array<{ path: string } | { name: string }> {
  const found = new Map<string, { path: string } | { name: string }>();
  for (const match of text.matchAll(/`([^`\s]+)`/g)) {
    const candidate = (match[1] ?? '').replace(/[:#][\w.-]*$/, '').replace(/[.,;)]+$/, '');
    if (/[<>*{}…|$=]/.test(candidate) || candidate.includes('://')) continue;
    if (ROOTS.some((root) => candidate.startsWith(`${root}/`))) found.set(candidate, { path: candidate });
    else if (SOURCE_FOLDERS.some((folder) => candidate.startsWith(`${folder}/`)) && /\.(ts|md)$/.test(candidate))
      found.set(candidate, { path: `src/${candidate}` });
    else if (/^[\w.-]+\.(ts|mjs|sh)$/.test(candidate)) found.set(candidate, { name: candidate });
  }
  return [...found.values()];
}

test('every source path the README and docs/ name exists', () => {
  const documents = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const missing: string[] = [];
  let checked = 0;
  const names = projectFileNames();
  for (const document of documents) {
    for (const named of namedPaths(fs.readFileSync(path.join(ROOT, document), 'utf8'))) {
      checked += 1;
      if ('path' in named ? !fs.existsSync(path.join(ROOT, named.path)) : !names.has(named.name))
        missing.push(`${document}: ${'path' in named ? named.path : named.name}`);
    }
  }
  assert.ok(checked > 100, `only ${checked} paths found: the pattern misses them`);
  assert.deepEqual(missing, [], 'paths the docs name that do not exist');
});
