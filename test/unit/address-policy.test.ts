import { describe, expect, it } from 'vitest';
import { isAddressAllowed } from '../../src/egress/address-policy.js';
import { parseCidrList } from '../../src/values/cidr.js';

const NONE = parseCidrList('');

describe('isAddressAllowed without exceptions', () => {
  it.each([
    ['93.184.216.34', 'public IPv4'],
    ['8.8.8.8', 'public IPv4'],
    ['1.1.1.1', 'public IPv4'],
    ['2606:4700::1111', 'public IPv6'],
    ['2001:4860:4860::8888', 'public IPv6'],
    ['::ffff:93.184.216.34', 'IPv4-mapped public address'],
  ])('allows %s (%s)', (address) => {
    expect(isAddressAllowed(address, NONE)).toBe(true);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['0.0.0.0', 'unspecified (reaches localhost on Linux)'],
    ['::', 'IPv6 unspecified'],
    ['10.0.0.1', 'RFC 1918'],
    ['10.255.255.255', 'RFC 1918'],
    ['172.16.0.1', 'RFC 1918'],
    ['172.31.255.254', 'RFC 1918'],
    ['192.168.1.1', 'RFC 1918'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped RFC 1918'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['fc00::1', 'unique local (fc00::/7)'],
    ['fd12:3456:789a::1', 'unique local (fc00::/7)'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local (fc00::/7)'],
    ['fe80::1', 'IPv6 link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'IPv6 multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['2002:7f00:1::', '6to4 of loopback'],
  ])('refuses %s (%s)', (address) => {
    expect(isAddressAllowed(address, NONE)).toBe(false);
  });

  it.each(['', 'localhost', 'example.com', '999.1.1.1', '1.2.3.4.5', 'fc00::g'])('refuses the non-address %j', (text) => {
    expect(isAddressAllowed(text, NONE)).toBe(false);
  });

  it('the neighbours of private ranges are public', () => {
    expect(isAddressAllowed('172.15.255.255', NONE)).toBe(true);
    expect(isAddressAllowed('172.32.0.1', NONE)).toBe(true);
    expect(isAddressAllowed('100.63.255.255', NONE)).toBe(true);
    expect(isAddressAllowed('100.128.0.1', NONE)).toBe(true);
    expect(isAddressAllowed('11.0.0.1', NONE)).toBe(true);
  });
});

describe('isAddressAllowed with allowed networks', () => {
  it('an allowed CIDR opens exactly that network', () => {
    const allowed = parseCidrList('10.0.0.0/8');
    expect(isAddressAllowed('10.1.2.3', allowed)).toBe(true);
    expect(isAddressAllowed('192.168.1.1', allowed)).toBe(false);
    expect(isAddressAllowed('127.0.0.1', allowed)).toBe(false);
    expect(isAddressAllowed('93.184.216.34', allowed)).toBe(true);
  });

  it('a single host opens only that host', () => {
    const allowed = parseCidrList('127.0.0.1');
    expect(isAddressAllowed('127.0.0.1', allowed)).toBe(true);
    expect(isAddressAllowed('127.0.0.2', allowed)).toBe(false);
  });

  it('an IPv4 exception also covers the IPv4-mapped IPv6 form', () => {
    const allowed = parseCidrList('127.0.0.0/8');
    expect(isAddressAllowed('::ffff:127.0.0.1', allowed)).toBe(true);
    expect(isAddressAllowed('::1', allowed)).toBe(false);
  });

  it('an IPv6 exception opens IPv6 addresses only', () => {
    const allowed = parseCidrList('fd00::/8');
    expect(isAddressAllowed('fd12::1', allowed)).toBe(true);
    expect(isAddressAllowed('fc00::1', allowed)).toBe(false);
    expect(isAddressAllowed('10.0.0.1', allowed)).toBe(false);
  });

  it('several exceptions', () => {
    const allowed = parseCidrList('192.168.0.0/16, 169.254.169.254/32, ::1');
    expect(isAddressAllowed('192.168.5.5', allowed)).toBe(true);
    expect(isAddressAllowed('169.254.169.254', allowed)).toBe(true);
    expect(isAddressAllowed('169.254.169.253', allowed)).toBe(false);
    expect(isAddressAllowed('::1', allowed)).toBe(true);
    expect(isAddressAllowed('10.0.0.1', allowed)).toBe(false);
  });
});
