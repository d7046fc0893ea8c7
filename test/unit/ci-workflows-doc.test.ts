import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { githubWorkflow, gitlabJob } from '../../src/web/ci-workflows.ts';
import { ROOT } from '../helpers/run-cli.ts';

test('docs/trusted-publishing.md shows the workflows the API page shows', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'trusted-publishing.md'), 'utf8');
  assert.ok(doc.includes(githubWorkflow('https://apps.example.org', 'myapp').trimEnd()));
  assert.ok(doc.includes(gitlabJob('https://apps.example.org', 'myapp').trimEnd()));
});
