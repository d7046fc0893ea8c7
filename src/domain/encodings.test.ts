import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webAddressProblem } from './encodings.ts';

test('one rule for web addresses: absolute, https (or http where allowed), a host, no credentials, nothing a parser would drop', () => {
  assert.equal(webAddressProblem('https://example.org/app.tar.gz'), null);
  assert.equal(webAddressProblem('http://example.org/')?.text, 'must be an https:// address, not http');
  assert.equal(webAddressProblem('http://example.org/', 'http or https'), null);
  assert.equal(
    webAddressProblem('javascript:alert(1)', 'http or https')?.text,
    'must be an http:// or https:// address, not javascript',
  );
  assert.match(webAddressProblem('example.org/x')?.text ?? '', /^is not an absolute URL/);
  assert.equal(webAddressProblem('https://user:secret@example.org/')?.text, 'must not hold a user name or password');
  assert.match(webAddressProblem('https://\texample.org/')?.text ?? '', /spaces or control characters/);
  assert.match(webAddressProblem('https://example.org/a b')?.text ?? '', /spaces or control characters/);
});
