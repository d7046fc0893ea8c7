import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SEMVER_PATTERN,
  compareNumericVersions,
  compareReleaseVersions,
  exclusiveMaximum,
  padMinimum,
  parsePlatformVersion,
  parseSemanticVersion,
  parseSpec,
  satisfies,
  versionRequirement,
} from './semantic-version.ts';

describe('version requirements (reference §3.5)', () => {
  test('padding', () => {
    assert.deepEqual(['9', '9.1', '9.1.2'].map(padMinimum), ['9.0.0', '9.1.0', '9.1.2']);
    assert.deepEqual(['9', '9.0', '9.0.0', '9.0.1', '11'].map(exclusiveMaximum), [
      '10.0.0',
      '9.1.0',
      '9.0.1',
      '9.0.2',
      '12.0.0',
    ]);
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
    for (const [min, max, spec, raw] of cases)
      assert.deepEqual(versionRequirement(min, max), { versionSpec: spec, rawVersionSpec: raw }, `${min} ${max}`);
  });
  test('numeric comparison, missing parts 0', () => {
    assert.ok(compareNumericVersions('9.10', '9.9') > 0);
    assert.equal(compareNumericVersions('9', '9.0.0'), 0);
    assert.ok(compareNumericVersions('8.1', '8.1.1') < 0);
  });
});

describe('semantic versions', () => {
  test('without build metadata', () => {
    for (const ok of ['1.0.0', '0.1.0', '8.8.0-rc.1', '0.11.10-alpha1', '3.0.0-dev.0'])
      assert.ok(SEMVER_PATTERN.test(ok), ok);
    for (const bad of ['0.1.4.1', '1.0', '01.0.0', '1.0.0+build', '1.0.0-', 'v1.0.0'])
      assert.ok(!SEMVER_PATTERN.test(bad), bad);
  });
  test('platform versions are X.Y.Z, digits only', () => {
    assert.deepEqual(parsePlatformVersion('30.0.1'), [30, 0, 1]);
    for (const bad of ['30', '30.0', '30.0.0-rc1', '030.0.0', '1234567.0.0'])
      assert.equal(parsePlatformVersion(bad), null, bad);
  });
  test('release precedence: semantic, a pre-release below its release, a nightly above its version', () => {
    const releases = [
      { version: '1.0.0', isNightly: false },
      { version: '1.0.0-beta.10', isNightly: false },
      { version: '1.0.0-beta.2', isNightly: false },
      { version: '1.0.0-alpha', isNightly: false },
      { version: '1.0.0', isNightly: true },
      { version: '0.9.10', isNightly: false },
      { version: '0.9.9', isNightly: false },
      { version: '1.0.0-beta', isNightly: false },
    ];
    const order = [...releases]
      .sort((a, b) => compareReleaseVersions(b, a))
      .map((r) => `${r.version}${r.isNightly ? ' nightly' : ''}`);
    assert.deepEqual(order, [
      '1.0.0 nightly',
      '1.0.0',
      '1.0.0-beta.10',
      '1.0.0-beta.2',
      '1.0.0-beta',
      '1.0.0-alpha',
      '0.9.10',
      '0.9.9',
    ]);
  });
});

describe('platform compatibility (reference §3.6)', () => {
  test("the original's table", () => {
    const cases: Array<[string, string, boolean]> = [
      ['>=9.1.1', '9.1.0', false],
      ['>=9.1.1 <9.1.2', '9.1.2', false],
      ['>=9.1.1 <9.1.2', '9.1.1', true],
      ['<9.1.2', '9.1.2', false],
      ['<9.2.0', '9.1.2', true],
      ['>=9.0.0 <12.0.0', '11.99.99', true],
      ['>=9.0.0 <12.0.0', '12.0.0', false],
      ['*', '1.0.0', true],
    ];
    for (const [spec, version, expected] of cases)
      assert.equal(satisfies(version, parseSpec(spec)), expected, `${version} in ${spec}`);
  });
});

describe('versions and specs read once per text', () => {
  test('the same text gives the same frozen result, a text that is not a version null each time', () => {
    const first = parseSemanticVersion('1.2.3-beta.1');
    assert.deepEqual(first, { core: [1, 2, 3], prerelease: ['beta', '1'] });
    assert.equal(
      parseSemanticVersion(['1.2.3', 'beta.1'].join('-')),
      first,
      'a text made elsewhere finds the same result',
    );
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first?.core) && Object.isFrozen(first?.prerelease));
    assert.equal(parseSemanticVersion('1.2'), null);
    assert.equal(parseSemanticVersion('1.2'), null);
    assert.equal(parseSpec('>=30.0.0 <32.0.0'), parseSpec(['>=30.0.0', '<32.0.0'].join(' ')));
    assert.ok(Object.isFrozen(parseSpec('>=30.0.0 <32.0.0')));
  });

  test('many distinct texts: results stay right past the bound of what is kept', () => {
    for (let i = 0; i < 25_000; i++) assert.deepEqual(parseSemanticVersion(`${i}.0.1`)?.core, [i, 0, 1]);
    assert.deepEqual(parseSpec('>=3 <4')?.min, [3, 0, 0]);
    assert.equal(
      compareReleaseVersions({ version: '10.0.0', isNightly: false }, { version: '9.0.0', isNightly: false }) > 0,
      true,
    );
  });
});
