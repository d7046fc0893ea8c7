import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestId, requestIdFor } from './request-id.ts';

test("new request ids have a UUID's shape and never repeat; a caller's sane id is kept", () => {
  const ids = Array.from({ length: 1000 }, () => newRequestId());
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(requestIdFor({ 'x-request-id': 'poll-1' }), 'poll-1');
  assert.match(requestIdFor({ 'x-request-id': 'no spaces allowed' }), /^[0-9a-f-]{36}$/);
});
