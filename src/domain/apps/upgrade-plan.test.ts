import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { installedApps, pastedJson } from './upgrade-plan.ts';

describe('reading occ app:list --output=json', () => {
  test('the shapes real servers print: an empty group as [], a pending upgrade, no version', () => {
    const apps = installedApps({
      enabled: { news: '25.0.0', files: '2.2.0' },
      disabled: { notes: '4.10.1 (installed 4.9.0)', legacy: true, gone: null },
    });
    assert.deepEqual(apps, [
      { id: 'news', version: '25.0.0', enabled: true },
      { id: 'files', version: '2.2.0', enabled: true },
      { id: 'notes', version: '4.9.0', enabled: false },
      { id: 'legacy', version: '', enabled: false },
      { id: 'gone', version: '', enabled: false },
    ]);
    assert.deepEqual(installedApps({ enabled: { news: '1.0.0' }, disabled: [] }), [
      { id: 'news', version: '1.0.0', enabled: true },
    ]);
  });

  test('refusals say what was wrong', () => {
    assert.throws(() => installedApps([]), /an object with "enabled" and "disabled"/);
    assert.throws(() => installedApps({ enabled: ['news'] }), /"enabled" is not an object/);
    assert.throws(
      () => installedApps({ enabled: { news: 3 } }),
      /the version of news in "enabled" is not a version string/,
    );
  });

  test('warnings occ prints before the JSON are skipped', () => {
    assert.deepEqual(pastedJson('PHP Warning: something\n{"enabled": {"news": "1.0.0"}}'), {
      enabled: { news: '1.0.0' },
    });
    assert.equal(pastedJson('no json here'), null);
    assert.equal(pastedJson('{"enabled": '), null);
  });
});
