import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  checkCallbackUrl,
  classifyAddress,
  resolveAllowed,
} from '../../src/webhooks/guard.js';

const table: Array<[string, AddressClass]> = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.1', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.1', 'public'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['ff02::1', 'multicast'],
  ['fd00:ec2::254', 'metadata'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::1', 'reserved'], // 6to4
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
  ['::7f00:1', 'reserved'], // deprecated IPv4-compatible
  ['4000::1', 'reserved'], // outside 2000::/3
  // IPv4-mapped IPv6 and NAT64: classified as the IPv4 inside
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::FFFF:7F00:0001', 'loopback'],
  ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:100.64.0.1', 'cgnat'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::8.8.8.8', 'public'],
];

describe('classifyAddress', () => {
  it.each(table)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('throws on something that is not an IP address', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
  });
});

describe('checkCallbackUrl', () => {
  const strict = { allowInsecure: false };
  const insecure = { allowInsecure: true };

  it('accepts https://example.com/hook', () => {
    const checked = checkCallbackUrl('https://example.com/hook', strict);
    expect(checked.ok && checked.url.href).toBe('https://example.com/hook');
  });

  it.each([
    ['not a url', /not a valid absolute URL/],
    ['http://example.com/hook', /must use https/],
    ['ftp://example.com/hook', /must use https/],
    ['https://user:pass@example.com/hook', /user name or password/],
    ['https://user@example.com/hook', /user name or password/],
    ['https://localhost/hook', /loopback/],
    ['https://api.localhost./hook', /loopback/],
  ])('refuses %s', (url, reason) => {
    const checked = checkCallbackUrl(url, strict);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });

  const forbiddenLiterals = table.filter(([ip, cls]) => cls !== 'public' && !ip.includes('%'));
  it.each(forbiddenLiterals)('refuses the IP literal %s (%s)', (ip, cls) => {
    const host = ip.includes(':') ? `[${ip}]` : ip;
    const checked = checkCallbackUrl(`https://${host}:8443/hook`, strict);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toContain(cls === 'cgnat' ? 'carrier-grade NAT' : cls);
  });

  it.each(['https://2130706433/hook', 'https://0x7f.1/hook', 'https://[::ffff:7f00:1]/hook'])(
    'refuses the disguised loopback literal %s',
    (url) => {
      expect(checkCallbackUrl(url, strict).ok).toBe(false);
    },
  );

  it('accepts public IP literals', () => {
    expect(checkCallbackUrl('https://8.8.8.8/hook', strict).ok).toBe(true);
    expect(checkCallbackUrl('https://[2606:4700:4700::1111]/hook', strict).ok).toBe(true);
  });

  it('allowInsecure lifts the https and address rules, not the others', () => {
    expect(checkCallbackUrl('http://127.0.0.1:3000/hook', insecure).ok).toBe(true);
    expect(checkCallbackUrl('http://localhost:3000/hook', insecure).ok).toBe(true);
    expect(checkCallbackUrl('https://[::1]/hook', insecure).ok).toBe(true);
    expect(checkCallbackUrl('http://10.0.0.1/hook', insecure).ok).toBe(true);
    expect(checkCallbackUrl('ftp://127.0.0.1/hook', insecure).ok).toBe(false);
    expect(checkCallbackUrl('http://u:p@127.0.0.1/hook', insecure).ok).toBe(false);
  });
});

describe('resolveAllowed', () => {
  const fixed =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('accepts a name whose addresses are all public', async () => {
    const result = await resolveAllowed('hooks.example', {
      allowInsecure: false,
      lookup: fixed('93.184.216.34', '2606:2800:220:1::1'),
    });
    expect(result.ok).toBe(true);
  });

  it('refuses when any resolved address is not public', async () => {
    const result = await resolveAllowed('hooks.example', {
      allowInsecure: false,
      lookup: fixed('93.184.216.34', '::ffff:169.254.169.254'),
    });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('metadata') });
  });

  it('resolves localhost with the system resolver and refuses it', async () => {
    const result = await resolveAllowed('localhost', { allowInsecure: false });
    expect(result.ok).toBe(false);
    expect(result.addresses.length).toBeGreaterThan(0);
    expect(result.addresses.every((a) => a.classification === 'loopback')).toBe(true);
    expect((await resolveAllowed('localhost', { allowInsecure: true })).ok).toBe(true);
  });

  it('refuses a name that does not resolve, in both modes', async () => {
    for (const allowInsecure of [false, true]) {
      const lookup = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND no-such-host.invalid'), { code: 'ENOTFOUND' });
      };
      const result = await resolveAllowed('no-such-host.invalid', { allowInsecure, lookup });
      expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('could not be resolved') });
    }
  });
});
