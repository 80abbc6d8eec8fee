import { createServer } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { httpListReader } from '../../../shared/db/adapters/list-reader.ts';
import { httpLogClient } from '../../../shared/db/detection-sources.ts';
import {
  checkUrl,
  type Egress,
  type EgressPolicy,
  EgressRefusedError,
  isPublicAddress,
  type Resolver,
} from '../../../shared/egress/index.ts';
import { sendWebhook } from '../../../shared/webhooks/sender.ts';

/*
 * One table of addresses and URLs, run against the policy and against every outbound caller.
 *
 * A row is an address (tried as `https://[address]/` and as a name resolving to it) or a URL
 * (`{port}` is the loopback server's port). `dns` is what the injected resolver answers for the
 * row's names (a list of lists answers them in turn, the last from then on); any other name
 * resolves to 127.0.0.1, where the loopback server listens. `local` rows run under the local
 * stage's policy (loopback `http` allowed), the others under AWS's.
 */
type Expected = 'allowed' | 'refused' | 'not followed' | 'rebinds';
type Row = { target: string; expected: Expected; note: string; local?: true; dns?: Record<string, string[][]> };

const A = (target: string, note: string): Row => ({ target, expected: 'allowed', note });
const R = (target: string, note: string): Row => ({ target, expected: 'refused', note });
const names = (dns: Record<string, string[] | string[][]>) =>
  Object.fromEntries(
    Object.entries(dns).map(([name, answers]) => [
      name,
      answers.length > 0 && Array.isArray(answers[0]) ? (answers as string[][]) : [answers as string[]],
    ]),
  );
const named = (row: Row, dns: Record<string, string[] | string[][]>): Row => ({ ...row, dns: names(dns) });
const local = (row: Row): Row => ({ ...row, local: true });

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:4700:4700::1111';

const ROWS: Row[] = [
  // IPv4: each refused block's first and last address, and the public neighbours just outside.
  R('0.0.0.0', '"this network", first'),
  R('0.255.255.255', '"this network", last'),
  A('1.0.0.0', 'just above 0.0.0.0/8'),
  A('9.255.255.255', 'just below 10.0.0.0/8'),
  R('10.0.0.0', 'private, first'),
  R('10.255.255.255', 'private, last'),
  A('11.0.0.0', 'just above 10.0.0.0/8'),
  A('100.63.255.255', 'just below 100.64.0.0/10'),
  R('100.64.0.0', 'carrier-grade NAT, first'),
  R('100.127.255.255', 'carrier-grade NAT, last'),
  A('100.128.0.0', 'just above 100.64.0.0/10'),
  A('126.255.255.255', 'just below 127.0.0.0/8'),
  R('127.0.0.0', 'loopback, first'),
  R('127.0.0.1', 'loopback'),
  R('127.255.255.255', 'loopback, last'),
  A('128.0.0.0', 'just above 127.0.0.0/8'),
  A('169.253.255.255', 'just below 169.254.0.0/16'),
  R('169.254.0.0', 'link-local, first'),
  R('169.254.169.254', 'cloud metadata'),
  R('169.254.255.255', 'link-local, last'),
  A('169.255.0.0', 'just above 169.254.0.0/16'),
  A('172.15.255.255', 'just below 172.16.0.0/12'),
  R('172.16.0.0', 'private, first'),
  R('172.31.255.255', 'private, last'),
  A('172.32.0.0', 'just above 172.16.0.0/12'),
  R('192.0.0.0', 'protocol assignments, first'),
  R('192.0.0.255', 'protocol assignments, last'),
  A('192.0.1.0', 'between 192.0.0.0/24 and 192.0.2.0/24'),
  R('192.0.2.0', 'TEST-NET-1, first'),
  R('192.0.2.255', 'TEST-NET-1, last'),
  A('192.0.3.0', 'just above 192.0.2.0/24'),
  A('192.88.98.255', 'just below 192.88.99.0/24'),
  R('192.88.99.0', '6to4 relay anycast, first'),
  R('192.88.99.255', '6to4 relay anycast, last'),
  A('192.88.100.0', 'just above 192.88.99.0/24'),
  A('192.167.255.255', 'just below 192.168.0.0/16'),
  R('192.168.0.0', 'private, first'),
  R('192.168.255.255', 'private, last'),
  A('192.169.0.0', 'just above 192.168.0.0/16'),
  A('198.17.255.255', 'just below 198.18.0.0/15'),
  R('198.18.0.0', 'benchmarking, first'),
  R('198.19.255.255', 'benchmarking, last'),
  A('198.20.0.0', 'just above 198.18.0.0/15'),
  A('198.51.99.255', 'just below 198.51.100.0/24'),
  R('198.51.100.0', 'TEST-NET-2, first'),
  R('198.51.100.255', 'TEST-NET-2, last'),
  A('198.51.101.0', 'just above 198.51.100.0/24'),
  A('203.0.112.255', 'just below 203.0.113.0/24'),
  R('203.0.113.0', 'TEST-NET-3, first'),
  R('203.0.113.255', 'TEST-NET-3, last'),
  A('203.0.114.0', 'just above 203.0.113.0/24'),
  A('223.255.255.255', 'just below 224.0.0.0/4'),
  R('224.0.0.0', 'multicast, first'),
  R('239.255.255.255', 'multicast, last'),
  R('240.0.0.0', 'reserved, first'),
  R('255.255.255.254', 'reserved, last but one'),
  R('255.255.255.255', 'limited broadcast'),
  A('8.8.8.8', 'public'),
  A(PUBLIC_V4, 'public'),

  // IPv6 refused outright, with the neighbours of 2000::/3 and of the blocks inside it.
  R('::', 'unspecified'),
  R('::1', 'loopback'),
  R('fc00::', 'unique local, first'),
  R('fd00:ec2::254', 'the metadata service over IPv6'),
  R('fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique local, last'),
  R('fe80::', 'link-local, first'),
  R('febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local, last'),
  R('fec0::', 'site-local, first'),
  R('feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'site-local, last'),
  R('ff00::', 'multicast, first'),
  R('ff02::1', 'all nodes'),
  R('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast, last'),
  R('100::', 'discard, first'),
  R('100::ffff:ffff:ffff:ffff', 'discard, last'),
  R('1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'just below 2000::/3'),
  A('2000::', '2000::/3, first'),
  A('3fff:1000::', 'just above 3fff::/20'),
  R('4000::', 'just above 2000::/3'),
  R('5f00::', 'segment routing'),
  R('2001::', 'Teredo, first'),
  R('2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo of a public client: refused outright'),
  R('2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'Teredo, last'),
  A('2001:1::1', 'PCP anycast, reachable inside 2001::/23'),
  A('2001:1::3', 'DNS-SD SRP anycast'),
  R('2001:1::4', 'unassigned inside 2001::/23'),
  R('2001:2::', 'benchmarking'),
  A('2001:3::', 'AMT, first'),
  A('2001:3:ffff:ffff:ffff:ffff:ffff:ffff', 'AMT, last'),
  A('2001:4:112::', 'AS112-v6'),
  R('2001:4:113::', 'just above AS112-v6'),
  R('2001:10::', 'deprecated ORCHID'),
  A('2001:20::', 'ORCHIDv2, first'),
  A('2001:3f:ffff:ffff:ffff:ffff:ffff:ffff', 'drone remote ID, last'),
  R('2001:40::', 'just above 2001:30::/28, inside 2001::/23'),
  R('2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', '2001::/23, last'),
  A('2001:200::', 'just above 2001::/23'),
  A('2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 'just below 2001:db8::/32'),
  R('2001:db8::', 'documentation, first'),
  R('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation, last'),
  A('2001:db9::', 'just above 2001:db8::/32'),
  R('3fff::', 'documentation (3fff::/20), first'),
  R('3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation (3fff::/20), last'),
  R('64:ff9b:1::', 'local-use translation, first'),
  R('64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use translation, last'),
  A(PUBLIC_V6, 'public'),

  // IPv4 written as IPv6, in every embedding: judged by the IPv4 address.
  R('::ffff:127.0.0.1', 'mapped loopback'),
  R('::ffff:7f00:1', 'mapped loopback, hex'),
  R('::ffff:a9fe:a9fe', 'mapped metadata'),
  R('::ffff:10.0.0.1', 'mapped private'),
  R('::ffff:0.0.0.0', 'mapped "this network"'),
  A('::ffff:8.8.8.8', 'mapped public'),
  R('::a9fe:a9fe', 'IPv4-compatible metadata'),
  R('::7f00:1', 'IPv4-compatible loopback'),
  R('::127.0.0.1', 'IPv4-compatible loopback, dotted'),
  A('::808:808', 'IPv4-compatible public'),
  R('::ffff:0:a9fe:a9fe', 'SIIT metadata'),
  R('::ffff:0:7f00:1', 'SIIT loopback'),
  R('::ffff:0:192.168.1.1', 'SIIT private, dotted'),
  A('::ffff:0:808:808', 'SIIT public'),
  R('64:ff9b::a9fe:a9fe', 'NAT64 metadata'),
  R('64:ff9b::7f00:1', 'NAT64 loopback'),
  R('64:ff9b::10.0.0.1', 'NAT64 private, dotted'),
  A('64:ff9b::808:808', 'NAT64 public'),
  R('2002:a9fe:a9fe::1', '6to4 metadata'),
  R('2002:7f00:1::', '6to4 loopback'),
  R('2002:c0a8:101:ffff:ffff:ffff:ffff:ffff', '6to4 private (192.168.1.1)'),
  R('2002::', '6to4 of 0.0.0.0'),
  A('2002:808:808::1', '6to4 public'),
  R('fe80::1%eth0', 'an address with a zone'),

  // URL forms WHATWG URL normalises, and the rules on the URL itself.
  R('https://2130706433:{port}/', 'decimal 127.0.0.1'),
  R('https://0x7f000001:{port}/', 'hex 127.0.0.1'),
  R('https://0177.0.0.1:{port}/', 'octal 127.0.0.1'),
  R('https://017700000001:{port}/', 'octal 127.0.0.1 in one part'),
  R('https://127.1:{port}/', 'two-part 127.0.0.1'),
  R('https://0x7f.0.0.1:{port}/', 'hex first part'),
  R('https://2852039166/', 'decimal 169.254.169.254'),
  R('https://0xa9fea9fe/', 'hex 169.254.169.254'),
  A('https://134744072/', 'decimal 8.8.8.8'),
  R('https://127.0.0.1.:{port}/', 'IPv4 with a trailing dot'),
  R('https://[::ffff:127.0.0.1]:{port}/', 'mapped loopback in brackets'),
  R('https://[::ffff:169.254.169.254]/latest/meta-data/', 'mapped metadata in brackets'),
  R('https://localhost:{port}/', 'https to localhost'),
  R('https://LOCALHOST:{port}/', 'https to localhost, upper case'),
  R('https://localhost.:{port}/', 'https to localhost, trailing dot'),
  R('https://api.localhost:{port}/', 'https to a localhost subdomain'),
  named(A('https://hooks.example.com./hook', 'a name with a trailing dot'), { 'hooks.example.com': [PUBLIC_V4] }),
  named(R('https://user:pass@hooks.example.com/hook', 'credentials'), { 'hooks.example.com': [PUBLIC_V4] }),
  named(R('https://user@hooks.example.com/hook', 'a user name'), { 'hooks.example.com': [PUBLIC_V4] }),
  named(R('https://:secret@hooks.example.com/hook', 'a password'), { 'hooks.example.com': [PUBLIC_V4] }),
  named(R('http://hooks.example.com/hook', 'http in AWS'), { 'hooks.example.com': [PUBLIC_V4] }),
  R(`http://${PUBLIC_V4}/hook`, 'http to a public address'),
  R('ftp://hooks.example.com/', 'another scheme'),
  R('file:///etc/passwd', 'a file'),
  R('//hooks.example.com/hook', 'a relative URL'),
  R('not a url', 'not a URL'),
  named(A('https://hooks.example.com/hook', 'a public name'), { 'hooks.example.com': [PUBLIC_V4] }),
  named(A('https://hooks.example.com:8443/a/b?c=d', 'a public name, port and query'), {
    'hooks.example.com': [PUBLIC_V4, PUBLIC_V6],
  }),
  A(`https://${PUBLIC_V4}/hook`, 'a public address'),
  A(`https://[${PUBLIC_V6}]/hook`, 'a public IPv6 address'),

  // The local stage: loopback http with a port, and nothing else it does not allow in AWS.
  local(A('http://127.0.0.1:{port}/', 'loopback http, local stage')),
  local(named(A('http://localhost:{port}/', 'localhost http, local stage'), { localhost: ['127.0.0.1'] })),
  R('http://127.0.0.1:{port}/', 'loopback http in AWS'),
  local(R('http://127.0.0.1/', 'loopback http without a port')),
  local(R('http://user:pass@127.0.0.1:{port}/', 'credentials, local stage')),
  local(R('https://127.0.0.1:{port}/', 'https to loopback, local stage')),
  local(R('https://localhost:{port}/', 'https to localhost, local stage')),
  local(R('http://10.0.0.1:{port}/', 'http to a private address, local stage')),
  local(R('http://[::1]:{port}/', 'http to another loopback form, local stage')),
  local(named(R('http://evil.test:{port}/', 'http to another name, local stage'), { 'evil.test': ['127.0.0.1'] })),
  local(
    named(R('http://localhost:{port}/', 'localhost answering a private address too'), {
      localhost: ['127.0.0.1', '10.0.0.1'],
    }),
  ),

  // Names: resolved by the service, every answer checked.
  named(R('https://loopback.test:{port}/', 'a name of 127.0.0.1'), { 'loopback.test': ['127.0.0.1'] }),
  named(R('https://metadata.test/latest/meta-data/', 'a name of the metadata service'), {
    'metadata.test': ['169.254.169.254'],
  }),
  named(R('https://private.test/', 'a name of a private address'), { 'private.test': ['10.1.2.3'] }),
  named(R('https://ula.test/', 'a name of a unique local address'), { 'ula.test': ['fd00::1'] }),
  named(R('https://mapped.test:{port}/', 'a name of mapped loopback'), { 'mapped.test': ['::ffff:127.0.0.1'] }),
  named(R('https://sixtofour.test/', 'a name of 6to4 metadata'), { 'sixtofour.test': ['2002:a9fe:a9fe::1'] }),
  named(R('https://mixed.test:{port}/', 'one private answer among public ones'), {
    'mixed.test': ['127.0.0.1', PUBLIC_V4],
  }),
  named(R('https://mixed6.test/', 'one link-local IPv6 answer among public ones'), {
    'mixed6.test': [PUBLIC_V6, 'fe80::1'],
  }),
  named(R('https://empty.test/', 'a name with no address'), { 'empty.test': [] }),
  R('https://nxdomain.invalid/', 'a name that does not resolve'),
  named(A('https://public.test/', 'a name of public addresses only'), { 'public.test': [PUBLIC_V4, PUBLIC_V6] }),
  {
    target: 'https://rebind.test:{port}/',
    expected: 'rebinds',
    note: 'public when checked, loopback when connected',
    dns: { 'rebind.test': [[PUBLIC_V4], ['127.0.0.1']] },
  },
  { target: 'http://127.0.0.1:{port}/redirect', expected: 'not followed', note: 'a redirect', local: true },
];

const AWS_STAGE: EgressPolicy = { allowLoopback: false };
const LOCAL_STAGE: EgressPolicy = { allowLoopback: true };
const policyOf = (row: Row) => (row.local ? LOCAL_STAGE : AWS_STAGE);
const isAddress = (row: Row) => isIP(row.target) !== 0;

/** The injected resolver of a row: its names' answers in turn; any other name is 127.0.0.1; `.invalid` names fail. */
const resolverOf = (row: Row): Resolver => {
  const asked = new Map<string, number>();
  const dns = row.dns ?? (isAddress(row) ? { 'address.test': [[row.target]] } : {});
  return async (name) => {
    if (name.endsWith('.invalid')) throw new Error(`ENOTFOUND ${name}`);
    const answers = dns[name];
    if (answers === undefined) return ['127.0.0.1'];
    const turn = asked.get(name) ?? 0;
    asked.set(name, turn + 1);
    return answers[Math.min(turn, answers.length - 1)] as string[];
  };
};

/** The URLs a row stands for: an address literally and by name, a URL as written; `{port}` filled in. */
const urlsOf = (row: Row, port: number): string[] => {
  const fill = (text: string) => text.replaceAll('{port}', String(port));
  if (!isAddress(row)) return [fill(row.target)];
  const literal = isIP(row.target) === 6 ? `[${row.target}]` : row.target;
  return [`https://${literal}:${port}/`, `https://address.test:${port}/`];
};

const refusedBy = async (url: string, row: Row): Promise<boolean> => {
  try {
    await checkUrl(url, policyOf(row), resolverOf(row));
    return false;
  } catch (error) {
    if (error instanceof EgressRefusedError) return true;
    throw error;
  }
};

describe('the egress policy over the table', () => {
  it('holds more than 100 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(100);
  });

  it.each(ROWS.map((row) => [row.target, row.note, row] as const))('%s (%s)', async (_, __, row) => {
    const refuse = row.expected === 'refused';
    if (isAddress(row)) expect(isPublicAddress(row.target)).toBe(!refuse);
    for (const url of urlsOf(row, 443)) expect(await refusedBy(url, row)).toBe(refuse);
  });
});

/*
 * Every outbound caller against the rows it can try without leaving this host: every refused
 * row (it must be refused, with nothing reaching the loopback server), the local stage's
 * loopback rows (they must reach it), the rebinding and the redirect rows.
 */
let connections = 0;
const requests: string[] = [];
const server = createServer((request, response) => {
  requests.push(request.url ?? '');
  if (request.url?.startsWith('/redirect')) {
    response.writeHead(302, { Location: `http://127.0.0.1:${port}/target` }).end();
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"tree_size": 3}');
});
server.on('connection', () => {
  connections++;
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const { port } = server.address() as AddressInfo;
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});
beforeEach(() => {
  connections = 0;
  requests.length = 0;
});

type Outcome = 'refused' | 'answered 2xx' | 'answered otherwise' | `failed: ${string}`;
const classify = (error: unknown): Outcome => {
  if (error instanceof EgressRefusedError) return 'refused';
  const message = (error as Error).message;
  return /answered [013-9]\d\d/.test(message) ? 'answered otherwise' : `failed: ${message}`;
};

const CALLERS: Record<string, (url: string, egress: Egress) => Promise<Outcome>> = {
  'webhook sender': async (url, egress) => {
    const sent = await sendWebhook(url, '{}', {}, { ...egress, timeoutMs: 5000 });
    if ('error' in sent) return sent.error === 'address refused' ? 'refused' : `failed: ${sent.error}`;
    return sent.status >= 200 && sent.status < 300 ? 'answered 2xx' : 'answered otherwise';
  },
  'CT log client': async (url, egress) =>
    httpLogClient(egress)
      .treeSize(url)
      .then((): Outcome => 'answered 2xx', classify),
  'list reader': async (url, egress) =>
    httpListReader({ ...egress, timeoutMs: 5000 })(url).then((): Outcome => 'answered 2xx', classify),
};

const CALLER_ROWS = ROWS.filter((row) => row.expected !== 'allowed' || row.local);

describe.each(Object.keys(CALLERS))('the %s under the egress policy', (caller) => {
  const call = CALLERS[caller] as (url: string, egress: Egress) => Promise<Outcome>;

  it.each(CALLER_ROWS.map((row) => [row.target, row.note, row] as const))('%s (%s)', async (_, __, row) => {
    const egress = { policy: policyOf(row), resolve: resolverOf(row) };
    const urls = urlsOf(row, port);

    if (row.expected === 'rebinds') {
      const [url] = urls as [string];
      const configured = await checkUrl(url, egress.policy, egress.resolve);
      expect(configured.href).toBe(url);
    }
    const outcomes = [];
    for (const url of urls) outcomes.push(await call(url, egress));

    if (row.expected === 'refused' || row.expected === 'rebinds') {
      expect(outcomes).toEqual(urls.map(() => 'refused'));
      expect(connections).toBe(0);
    } else if (row.expected === 'not followed') {
      expect(outcomes).toEqual(['answered otherwise']);
      expect(requests.filter((path) => path.startsWith('/target'))).toEqual([]);
      expect(requests).toHaveLength(1);
    } else {
      expect(outcomes).toEqual(['answered 2xx']);
      expect(requests).toHaveLength(1);
    }
  });
});
