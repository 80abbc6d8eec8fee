import { BlockList, isIP } from 'node:net';

/** IPv4 special-purpose blocks that are not globally reachable (IANA registry). */
const IPV4_REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata service among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved
  ['255.255.255.255', 32], // limited broadcast
] as const) {
  IPV4_REFUSED.addSubnet(network, prefix, 'ipv4');
}

/** IPv6 blocks refused whatever they hold. */
const IPV6_REFUSED = new BlockList();
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local, the metadata service's IPv6 address among them
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8], // multicast
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, but for the entries of IPV6_REACHABLE
  ['2001::', 32], // Teredo: its client IPv4 (last 32 bits XOR 0xffffffff) is any address
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing SIDs
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
] as const) {
  IPV6_REFUSED.addSubnet(network, prefix, 'ipv6');
}

/** The globally reachable entries inside 2001::/23 (IANA registry). */
const IPV6_REACHABLE = new BlockList();
for (const [network, prefix] of [
  ['2001:1::1', 128], // PCP anycast
  ['2001:1::2', 128], // TURN anycast
  ['2001:1::3', 128], // DNS-SD SRP anycast
  ['2001:3::', 32], // AMT
  ['2001:4:112::', 48], // AS112-v6
  ['2001:20::', 28], // ORCHIDv2
  ['2001:30::', 28], // drone remote ID tags
] as const) {
  IPV6_REACHABLE.addSubnet(network, prefix, 'ipv6');
}

const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** An IPv6 address as its eight 16-bit words; `address` must be one `isIP` accepts, without a zone. */
const wordsOf = (address: string): number[] => {
  // A dotted IPv4 tail is two words.
  const text = address
    .toLowerCase()
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
      [((Number(a) << 8) | Number(b)).toString(16), ((Number(c) << 8) | Number(d)).toString(16)].join(':'),
    );
  const [head = '', tail] = text.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((word) => Number.parseInt(word, 16)));
  if (tail === undefined) return words(head);
  const before = words(head);
  const after = words(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
};

const dotted = (high: number, low: number): string => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address an IPv6 address stands for, in the forms that reach it: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-compatible (`::/96`), SIIT (`::ffff:0:0:0/96`) and NAT64
 * (`64:ff9b::/96`) in the last 32 bits, 6to4 (`2002::/16`) in bits 16–47.
 */
const embeddedIpv4 = (words: number[]): string | undefined => {
  const [w0, w1, w2, w3, w4, w5, w6 = 0, w7 = 0] = words;
  const zeroTo4 = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0;
  if (zeroTo4 && w4 === 0 && w5 === 0xffff) return dotted(w6, w7);
  if (zeroTo4 && w4 === 0 && w5 === 0) return dotted(w6, w7);
  if (zeroTo4 && w4 === 0xffff && w5 === 0) return dotted(w6, w7);
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return dotted(w6, w7);
  if (w0 === 0x2002) return dotted(w1 ?? 0, w2 ?? 0);
  return undefined;
};

const isPublicIpv4 = (address: string): boolean => !IPV4_REFUSED.check(address, 'ipv4');

/**
 * Whether `address` is a globally reachable unicast address: IPv4 outside every special-purpose
 * block that is not globally reachable; IPv6 inside `2000::/3` and outside those blocks, judged
 * by the IPv4 address it embeds where it embeds one. Anything else (a zone, a name) is refused.
 */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 4) return isPublicIpv4(address);
  if (family !== 6 || address.includes('%')) return false;
  if (IPV6_REFUSED.check(address, 'ipv6') && !IPV6_REACHABLE.check(address, 'ipv6')) return false;
  const embedded = embeddedIpv4(wordsOf(address));
  if (embedded !== undefined) return isPublicIpv4(embedded);
  return GLOBAL_UNICAST.check(address, 'ipv6');
};

const LOOPBACK_IPV4 = new BlockList();
LOOPBACK_IPV4.addSubnet('127.0.0.0', 8, 'ipv4');

/** Whether `address` is this host's loopback: `127.0.0.0/8`, `::1`, or `127.0.0.0/8` as IPv4-mapped IPv6 (a dual-stack socket's view). */
export const isLoopbackAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 4) return LOOPBACK_IPV4.check(address, 'ipv4');
  if (family !== 6 || address.includes('%')) return false;
  const words = wordsOf(address);
  if (words.slice(0, 7).every((word) => word === 0) && words[7] === 1) return true;
  const mapped = words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff;
  return mapped && LOOPBACK_IPV4.check(dotted(words[6] ?? 0, words[7] ?? 0), 'ipv4');
};
