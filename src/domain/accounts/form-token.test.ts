import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFormToken, formToken } from './form-token.ts';

const keys = { session: Buffer.alloc(32, 7) };

test('a form token is accepted only with the browser secret it was made for', () => {
  const token = formToken(keys, 'browser-a');
  assert.doesNotThrow(() => checkFormToken(keys, 'browser-a', token));
  for (const [secret, provided] of [
    ['browser-b', token],
    ['browser-a', undefined],
    ['browser-a', ''],
    ['browser-a', token.slice(1)],
    ['browser-a', ['x']],
    [undefined, token],
    ['', formToken(keys, '')],
  ] as const) {
    assert.throws(() => checkFormToken(keys, secret, provided), { code: 'csrf_failed' });
  }
  assert.notEqual(formToken({ session: Buffer.alloc(32, 8) }, 'browser-a'), token);
});
