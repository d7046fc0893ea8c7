import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSpec, satisfies } from './platform-compat.ts';

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
    for (const [spec, version, expected] of cases) assert.equal(satisfies(version, parseSpec(spec)), expected, `${version} in ${spec}`);
  });
});
