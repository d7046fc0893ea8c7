import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base32, hotp, matchingStep, otpauthUri, stepAt } from './totp.ts';

// RFC 6238 Appendix B (SHA-1 secret "12345678901234567890"), the last 6 of its 8 digits.
const SECRET = Buffer.from('12345678901234567890', 'ascii');
const VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

test('the codes of RFC 6238, appendix B', () => {
  for (const [seconds, code] of VECTORS) {
    const step = stepAt(new Date(seconds * 1000));
    assert.equal(hotp(SECRET, step, 8), code, `T=${seconds}`);
    assert.equal(hotp(SECRET, step), code.slice(2));
  }
});

test('a code is accepted one step either side, and not again once used', () => {
  const time = new Date(1111111111 * 1000);
  const step = stepAt(time);
  assert.equal(matchingStep(SECRET, hotp(SECRET, step), time, 0), step);
  assert.equal(matchingStep(SECRET, hotp(SECRET, step - 1), time, 0), step - 1);
  assert.equal(matchingStep(SECRET, hotp(SECRET, step + 1), time, 0), step + 1);
  assert.equal(matchingStep(SECRET, hotp(SECRET, step - 2), time, 0), null);
  assert.equal(matchingStep(SECRET, hotp(SECRET, step), time, step), null, 'used');
  assert.equal(
    matchingStep(SECRET, ` ${hotp(SECRET, step).slice(0, 3)} ${hotp(SECRET, step).slice(3)} `, time, 0),
    step,
  );
  assert.equal(matchingStep(SECRET, 'abcdef', time, 0), null);
});

test('base32 and the otpauth URI', () => {
  assert.equal(base32(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.equal(base32(SECRET), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  assert.equal(
    otpauthUri(SECRET, 'App Store', 'alice'),
    'otpauth://totp/App%20Store%3Aalice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=App+Store&algorithm=SHA1&digits=6&period=30',
  );
});
