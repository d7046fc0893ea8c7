import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEMVER_PATTERN, exclusiveMaximum, padMinimum, versionRequirement } from './version-spec.ts';

describe('version specs (reference §3.5)', () => {
  test('padding', () => {
    assert.deepEqual(['9', '9.1', '9.1.2'].map(padMinimum), ['9.0.0', '9.1.0', '9.1.2']);
    assert.deepEqual(['9', '9.0', '9.0.0', '9.0.1', '11'].map(exclusiveMaximum), ['10.0.0', '9.1.0', '9.0.1', '9.0.2', '12.0.0']);
  });
  test('worked examples', () => {
    const cases: Array<[string | undefined, string | undefined, string, string]> = [
      ['9', '11', '>=9.0.0 <12.0.0', '>=9 <=11'],
      ['9', '10', '>=9.0.0 <11.0.0', '>=9 <=10'],
      ['31', '31', '>=31.0.0 <32.0.0', '>=31 <=31'],
      ['9.1', '10.2', '>=9.1.0 <10.3.0', '>=9.1 <=10.2'],
      ['9.0.1', '9.0.5', '>=9.0.1 <9.0.6', '>=9.0.1 <=9.0.5'],
      ['5.6', undefined, '>=5.6.0', '>=5.6'],
      [undefined, '7.1', '<7.2.0', '<=7.1'],
      ['2.7.8', undefined, '>=2.7.8', '>=2.7.8'],
      [undefined, undefined, '*', '*'],
    ];
    for (const [min, max, spec, raw] of cases) assert.deepEqual(versionRequirement(min, max), { versionSpec: spec, rawVersionSpec: raw }, `${min} ${max}`);
  });
  test('semantic versions without build metadata', () => {
    for (const ok of ['1.0.0', '0.1.0', '8.8.0-rc.1', '0.11.10-alpha1', '3.0.0-dev.0']) assert.ok(SEMVER_PATTERN.test(ok), ok);
    for (const bad of ['0.1.4.1', '1.0', '01.0.0', '1.0.0+build', '1.0.0-', 'v1.0.0']) assert.ok(!SEMVER_PATTERN.test(bad), bad);
  });
});
