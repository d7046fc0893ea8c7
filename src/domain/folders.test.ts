import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const DOMAIN = import.meta.dirname;

test('no two folders of the domain import each other (rules several use are top-level files)', () => {
  const edges = new Map<string, Set<string>>();
  for (const entry of fs.readdirSync(DOMAIN, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || !file.includes('/')) continue;
    const from = file.split('/')[0] ?? '';
    for (const match of fs.readFileSync(path.join(DOMAIN, file), 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = path.relative(DOMAIN, path.resolve(path.dirname(path.join(DOMAIN, file)), match[1] ?? ''));
      if (target.startsWith('..') || !target.includes('/')) continue;
      const to = target.split('/')[0] ?? '';
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const cycles = [...edges].flatMap(([from, targets]) =>
    [...targets].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
  );
  assert.ok(edges.size > 5, 'the folders were read');
  assert.deepEqual(cycles, []);
});
