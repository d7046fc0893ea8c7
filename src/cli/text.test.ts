import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closest, counted, sizeText, wrap } from './text.ts';

test('wrap keeps indented example lines as they are', () => {
  assert.equal(
    wrap('FILE is an array like:\n  [{"id": "games"}]\nEach one is created.', 80),
    'FILE is an array like:\n  [{"id": "games"}]\nEach one is created.',
  );
});

test('wrap fills paragraphs to the width, with an indent', () => {
  const text = 'one two three four five six seven eight nine ten\n\nsecond paragraph';
  const wrapped = wrap(text, 20, '  ');
  for (const line of wrapped.split('\n')) assert.ok(line.length <= 20, line);
  assert.equal(wrapped, '  one two three four\n  five six seven\n  eight nine ten\n\n  second paragraph');
});

test('closest names the command meant by a typo, and nothing for a word unlike any', () => {
  const words = ['add', 'invite', 'token', 'passwd', 'disable', 'enable', 'list'];
  assert.equal(closest('lst', words), 'list');
  assert.equal(closest('tokne', words), 'token');
  assert.equal(closest('frobnicate', words), null);
});

test('counted says one or many', () => {
  assert.equal(counted(1, 'category', 'categories'), '1 category');
  assert.equal(counted(0, 'category', 'categories'), '0 categories');
});

test('sizes: KiB under a MiB, MiB above', () => {
  assert.equal(sizeText(0), '0 KiB');
  assert.equal(sizeText(300 * 1024 + 1), '301 KiB');
  assert.equal(sizeText(1024 * 1024), '1.0 MiB');
  assert.equal(sizeText(20.5 * 1024 * 1024), '20.5 MiB');
});
