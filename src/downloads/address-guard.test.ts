import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isForbiddenAddress } from './address-guard.ts';

describe('isForbiddenAddress', () => {
  test('loopback, private, link-local, unique-local, multicast, reserved: forbidden', () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:10.1.2.3',
      '[::1]',
      'fe80::1%eth0',
      'not an address',
    ]) {
      assert.equal(isForbiddenAddress(address), true, address);
    }
  });
  test('public addresses: allowed', () => {
    for (const address of [
      '140.82.121.4',
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700::1111',
      '2a00:1450:4001::1',
      '::ffff:140.82.121.4',
    ]) {
      assert.equal(isForbiddenAddress(address), false, address);
    }
  });
});
