import net from 'node:net';

/**
 * Addresses a release download may not connect to (contract §6 step 1): loopback, private,
 * link-local, unique-local, multicast, reserved and documentation ranges, IPv4 and IPv6;
 * IPv4-mapped IPv6 addresses are judged by their IPv4 address.
 */
const blocked = new net.BlockList();
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6: Array<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];
for (const [address, prefix] of V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of V6) blocked.addSubnet(address, prefix, 'ipv6');

/** True when a download must not connect to this address. Anything unparseable counts as forbidden. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped !== undefined) return blocked.check(mapped, 'ipv4');
  const family = net.isIP(bare);
  if (family === 0) return true;
  return blocked.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
