import { describe, expect, it } from 'vitest';
import { assertPublicReceiver, backoffMs, isAllowedAddress, URL_REFUSED } from '../../../shared/domain/webhooks.ts';

const AWS = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

describe('the addresses a webhook receiver may have', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '::1',
    '::',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a00:1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address, AWS)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])(
    'accepts the public address %s',
    (address) => {
      expect(isAllowedAddress(address, AWS)).toBe(true);
    },
  );

  it('accepts loopback only where loopback is allowed, and never a private address', () => {
    expect(isAllowedAddress('127.0.0.1', LOCAL)).toBe(true);
    expect(isAllowedAddress('::1', LOCAL)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', LOCAL)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', LOCAL)).toBe(false);
  });
});

describe('a receiver URL at configuration', () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
  const names = resolver({
    'hooks.example.com': ['93.184.216.34'],
    'internal.example.com': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
    'metadata.example.com': ['169.254.169.254'],
  });

  it.each([
    ['http://hooks.example.com/hook', AWS],
    ['http://127.0.0.1:8080/hook', AWS],
    ['http://localhost:8080/hook', AWS],
    ['https://127.0.0.1/hook', AWS],
    ['https://127.0.0.1/hook', LOCAL],
    ['https://localhost/hook', LOCAL],
    ['https://169.254.169.254/latest/meta-data', AWS],
    ['https://10.0.0.1/hook', AWS],
    ['https://[::1]/hook', AWS],
    ['https://[fd00:ec2::254]/', AWS],
    ['https://internal.example.com/hook', AWS],
    ['https://mixed.example.com/hook', AWS],
    ['https://metadata.example.com/hook', LOCAL],
    ['https://unknown.example.com/hook', AWS],
    ['https://user:pass@hooks.example.com/hook', AWS],
    ['http://10.0.0.1:8080/hook', LOCAL],
    ['http://127.0.0.1/hook', LOCAL],
    ['ftp://hooks.example.com/hook', AWS],
    ['not a url', AWS],
  ])('refuses %s (%j)', async (url, policy) => {
    await expect(assertPublicReceiver(url, policy, names)).rejects.toThrow(URL_REFUSED);
  });

  it.each([
    ['https://hooks.example.com/hook', AWS],
    ['https://93.184.216.34/hook', AWS],
    ['http://127.0.0.1:8080/hook', LOCAL],
    ['http://localhost:8080/hook', LOCAL],
  ])('accepts %s (%j)', async (url, policy) => {
    await expect(
      assertPublicReceiver(
        url,
        policy,
        resolver({ ...{ localhost: ['127.0.0.1'] }, 'hooks.example.com': ['93.184.216.34'] }),
      ),
    ).resolves.toBeInstanceOf(URL);
  });
});

describe('the wait before each retry', () => {
  it('grows with every retry whatever the jitter draws', () => {
    const highest = [1, 2, 3].map((attempt) => backoffMs(1000, attempt, () => 0.999));
    const lowest = [1, 2, 3].map((attempt) => backoffMs(1000, attempt, () => 0));

    expect(lowest).toEqual([1000, 2000, 4000]);
    expect(highest[0]).toBeLessThan(lowest[1] as number);
    expect(highest[1]).toBeLessThan(lowest[2] as number);
  });
});
