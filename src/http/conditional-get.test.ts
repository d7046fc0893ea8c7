import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chooseEncoding, etagListMatches } from './conditional-get.ts';

const both = { br: true, gzip: true };

describe('chooseEncoding', () => {
  test('no header: identity', () => assert.equal(chooseEncoding(undefined, both), 'identity'));
  test('gzip only (what Nextcloud servers send)', () => assert.equal(chooseEncoding('gzip', both), 'gzip'));
  test('br preferred on ties', () => assert.equal(chooseEncoding('gzip, deflate, br', both), 'br'));
  test('q values decide', () => assert.equal(chooseEncoding('br;q=0.5, gzip;q=0.9', both), 'gzip'));
  test('q=0 refuses', () => assert.equal(chooseEncoding('br;q=0, gzip', both), 'gzip'));
  test('wildcard', () => assert.equal(chooseEncoding('*', both), 'br'));
  test('unavailable encodings are skipped', () =>
    assert.equal(chooseEncoding('br', { br: false, gzip: true }), 'identity'));
  test('unknown encodings only: identity', () => assert.equal(chooseEncoding('deflate, zstd', both), 'identity'));
  test('case-insensitive', () => assert.equal(chooseEncoding('GZIP', both), 'gzip'));
});

describe('etagListMatches', () => {
  const etag = '"abc-3-apps"';
  test('exact', () => assert.ok(etagListMatches('"abc-3-apps"', etag)));
  test('weak comparison', () => assert.ok(etagListMatches('W/"abc-3-apps"', etag)));
  test('in a list', () => assert.ok(etagListMatches('"x", "abc-3-apps"', etag)));
  test('star', () => assert.ok(etagListMatches('*', etag)));
  test('other version', () => assert.ok(!etagListMatches('"abc-2-apps"', etag)));
  test('unquoted does not match', () => assert.ok(!etagListMatches('abc-3-apps', etag)));
  test('empty', () => assert.ok(!etagListMatches('', etag)));
});
