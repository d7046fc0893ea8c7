import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { trustedProxyMatcher } from './node-server.ts';

describe('trustedProxyMatcher', () => {
  test('false trusts nobody, true everybody', () => {
    assert.equal(trustedProxyMatcher(false)('127.0.0.1'), false);
    assert.equal(trustedProxyMatcher(true)('203.0.113.9'), true);
  });
  test('a list of addresses and ranges, IPv4-mapped IPv6 included', () => {
    const trusted = trustedProxyMatcher(['10.0.0.0/8', '127.0.0.1', '2001:db8::/32']);
    assert.equal(trusted('10.1.2.3'), true);
    assert.equal(trusted('::ffff:10.1.2.3'), true);
    assert.equal(trusted('127.0.0.1'), true);
    assert.equal(trusted('127.0.0.2'), false);
    assert.equal(trusted('2001:db8::1'), true);
    assert.equal(trusted('2001:db9::1'), false);
    assert.equal(trusted('203.0.113.9'), false);
  });
});
