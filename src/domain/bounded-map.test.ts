import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remember } from './bounded-map.ts';

test('remember keeps values until the bound, then starts again', () => {
  const map = new Map<string, number>();
  assert.equal(remember(map, 'a', 1, 2), 1);
  remember(map, 'b', 2, 2);
  assert.deepEqual(
    [...map],
    [
      ['a', 1],
      ['b', 2],
    ],
  );
  remember(map, 'c', 3, 2);
  assert.deepEqual([...map], [['c', 3]], 'full: cleared before the new key');
});
