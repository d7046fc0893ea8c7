import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './log-redaction.ts';

test('the log shows no OAuth code, state or form token', () => {
  assert.equal(
    redactUrl('/account/external/corp/callback?code=abc&state=def&iss=https%3A%2F%2Fid'),
    '/account/external/corp/callback?code=[redacted]&state=[redacted]&iss=https%3A%2F%2Fid',
  );
  assert.equal(
    redactUrl('/account/external/corp/link?csrf_token=0123'),
    '/account/external/corp/link?csrf_token=[redacted]',
  );
  assert.equal(redactUrl('/search?q=code&page=2'), '/search?q=code&page=2');
  assert.equal(redactUrl('/api/v1/apps.json'), '/api/v1/apps.json');
  assert.equal(redactUrl('/x?%E0%A4%A=1&Code=2'), '/x?%E0%A4%A=1&Code=[redacted]');
});
