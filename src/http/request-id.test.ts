import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestId, requestIdFor, requestIdMaker } from './request-id.ts';

test("new request ids have a UUID's shape and never repeat; a caller's sane id is kept", () => {
  const ids = Array.from({ length: 1000 }, () => newRequestId());
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(requestIdFor({ 'x-request-id': 'poll-1' }), 'poll-1');
  assert.match(requestIdFor({ 'x-request-id': 'no spaces allowed' }), /^[0-9a-f-]{36}$/);
});

test('the counter carries into the id when its last digits wrap, and wraps at 48 bits', () => {
  const next = requestIdMaker('p-', 0xffe);
  assert.deepEqual([next(), next(), next()], ['p-000000000fff', 'p-000000001000', 'p-000000001001']);
  const last = requestIdMaker('p-', 2 ** 48 - 2);
  assert.deepEqual([last(), last(), last()], ['p-ffffffffffff', 'p-000000000000', 'p-000000000001']);
});
