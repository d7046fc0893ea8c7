import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLatestRelease } from './latest-release.ts';

describe('isLatestRelease (contract §6 step 6)', () => {
  test('no stable release yet: anything updates the app, nightlies and pre-releases included', () => {
    assert.ok(isLatestRelease('9.0.0-alpha', false, []));
    assert.ok(isLatestRelease('1.0.0', true, ['0.9.0-beta']));
  });
  test('a stable release at least every other stable one updates', () => {
    assert.ok(isLatestRelease('8.8.2', false, ['8.8.1', '8.8.2']));
    assert.ok(isLatestRelease('10.0.0', false, ['9.10.0', '9.9.0']));
  });
  test('an older stable, a pre-release or a nightly does not', () => {
    assert.ok(!isLatestRelease('8.8.1', false, ['8.8.2']));
    assert.ok(!isLatestRelease('9.0.0-alpha', false, ['8.8.2']));
    assert.ok(!isLatestRelease('8.8.2', true, ['8.8.2']));
    assert.ok(!isLatestRelease('9.9.0', false, ['9.10.0']), 'numeric, not text, comparison');
  });
});
