import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listingOf } from './listing-fast-path.ts';

test('listingOf: the listing each polled address names, as the routes read it', () => {
  assert.deepEqual(listingOf('/api/v1/apps.json'), { kind: 'apps', includeEnterprise: false });
  assert.deepEqual(listingOf('/api/v1/apps.json?include_enterprise=TRUE'), { kind: 'apps', includeEnterprise: true });
  assert.deepEqual(listingOf('/api/v1/platform/31.0.0/apps.json'), { kind: 'apps', includeEnterprise: false, platform: '31.0.0' });
  assert.deepEqual(listingOf('/api/v1/appapi_apps.json'), { kind: 'apps', includeEnterprise: false, exApps: true });
  assert.deepEqual(listingOf('/api/v1//appapi_apps.json/?include_enterprise=1'), { kind: 'apps', includeEnterprise: true, exApps: true });
  assert.deepEqual(listingOf('/api/v1/discover.json'), { kind: 'discover' });
  assert.deepEqual(listingOf('/api/v1/categories.json'), { kind: 'categories' });
  assert.equal(listingOf('/api/v1/platform/31/apps.json'), null, 'not a platform version the route takes');
  assert.equal(listingOf('/api/v1/apps.json?include_enterprise=1&include_enterprise=0'), null, 'repeated: the route refuses it');
  assert.equal(listingOf('/api/v1/discover'), null);
});
