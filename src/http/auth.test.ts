import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../errors.ts';
import { parseAuthorization } from './auth.ts';

const refused = (header: string, message: RegExp) =>
  assert.throws(
    () => parseAuthorization(header),
    (e: unknown) => e instanceof AppError && e.code === 'not_authenticated' && message.test(e.detail),
  );

describe('parseAuthorization', () => {
  test('Basic, with a colon in the password and UTF-8', () => {
    const value = Buffer.from('alice:pa:ss ü').toString('base64');
    assert.deepEqual(parseAuthorization(`Basic ${value}`), { scheme: 'basic', username: 'alice', password: 'pa:ss ü' });
    assert.deepEqual(parseAuthorization(`basic ${value}`), { scheme: 'basic', username: 'alice', password: 'pa:ss ü' });
  });
  test('Token and Bearer', () => {
    assert.deepEqual(parseAuthorization('Token abc'), { scheme: 'token', token: 'abc' });
    assert.deepEqual(parseAuthorization('Bearer abc'), { scheme: 'token', token: 'abc' });
  });
  test('refusals', () => {
    refused('', /Malformed/);
    refused('Basic', /Malformed/);
    refused('Token a b', /Malformed/);
    refused('Digest abc', /Unsupported authorization scheme 'Digest'/);
    refused('Basic ab$c', /not base64/);
    refused('Basic abc', /not base64/);
    refused(`Basic ${Buffer.from('nocolon').toString('base64')}`, /username:password/);
  });
});
