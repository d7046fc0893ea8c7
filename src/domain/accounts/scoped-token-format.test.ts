import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateScopedToken, readScopedToken, SCOPED_TOKEN_PATTERN } from './scoped-token-format.ts';

test('scoped tokens carry their kind in the prefix and a checksum a scanner can verify', () => {
  const personal = generateScopedToken('personal');
  const publishing = generateScopedToken('publishing');
  assert.match(personal, /^apst_[0-9A-Za-z]{46}$/);
  assert.match(publishing, /^aptp_[0-9A-Za-z]{46}$/);
  assert.deepEqual(readScopedToken(personal), { kind: 'personal', checksumValid: true });
  assert.deepEqual(readScopedToken(publishing), { kind: 'publishing', checksumValid: true });
  assert.notEqual(generateScopedToken('personal'), personal);
});

test('one changed character breaks the checksum; other shapes are not scoped tokens', () => {
  const token = generateScopedToken('personal');
  const position = 10;
  const changed = token.slice(0, position) + (token[position] === 'a' ? 'b' : 'a') + token.slice(position + 1);
  assert.equal(readScopedToken(changed)?.checksumValid, false);
  assert.equal(readScopedToken('a'.repeat(64)), null);
  assert.equal(readScopedToken(`${token}x`), null);
  assert.equal(readScopedToken(token.replace('apst_', 'apxx_')), null);
  assert.equal(SCOPED_TOKEN_PATTERN.test(token), true);
});
