import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BlocklistClient } from '../../shared/blocklist-client/client.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { seededRandom } from '../fixtures/verdicts.ts';

const table = await createTestTable('e2e-blocklist');
const KEY = 'blocklist-org-key-0123456789abcdef';
const gateway = createGateway();

/** What went through the recording proxy: each request's method, path and body. */
const recorded: string[] = [];
/** Forwards every request to the gateway unchanged (the Host header too), recording it. */
const proxy: Server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const body = Buffer.concat(chunks);
    recorded.push(`${incoming.method} ${incoming.url} ${body.toString('utf8')}`);
    const target = gateway.address() as AddressInfo;
    const forward = httpRequest(
      { host: '127.0.0.1', port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.end(body);
  });
});

let direct = '';
let viaProxy = '';

const random = seededRandom(20_261_126);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const word = (length = 6 + Math.floor(random() * 5)) =>
  Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');

/** The service's BLOCKED entries: hosts, subdomains, pages one to three segments deep, IDN, IPs, tenants, addresses. */
const blockedHosts = Array.from({ length: 120 }, (_, i) => `${word()}-blk${i}.${pick(['com', 'xyz', 'io', 'net'])}`);
const blockedSubdomains = Array.from(
  { length: 40 },
  (_, i) => `${pick(['login', 'claim', 'app'])}.${word()}-sub${i}.com`,
);
const pathHosts = Array.from({ length: 60 }, (_, i) => `${word()}-pages${i}.org`);
const blockedPages = pathHosts.map((host, i) => `${host}/${['claim', 'a/b', 'x/y/z'][i % 3]}`);
const idnHosts = Array.from({ length: 20 }, (_, i) => `${word(5)}ø${i}-wället.com`);
const ips = Array.from({ length: 20 }, (_, i) => `203.0.113.${10 + i}`);
const tenants = Array.from({ length: 20 }, (_, i) => `https://x.com/${word()}scam${i}`);
const hosted = Array.from({ length: 15 }, (_, i) => `${word()}-drain${i}.github.io`);
const addresses = Array.from(
  { length: 15 },
  () => `0x${Array.from({ length: 40 }, () => pick([...'0123456789abcdef'])).join('')}`,
);
/** Brand domains allowlisted by the organization, some with a blocked look-alike child. */
const allowedHosts = Array.from({ length: 30 }, (_, i) => `${word()}-brand${i}.com`);
const blockedChildrenOfAllowed = allowedHosts.slice(0, 10).map((host) => `phish.${host}`);
/** Allowlistings under blocked entries, which keep their URLs ALLOWED at the check. */
const maskingHosts = blockedHosts.slice(0, 15).map((host) => `good.${host}`);
const maskingPages = pathHosts.slice(0, 9).map((host, i) => `${host}/${['claim', 'a/b', 'x/y/z'][i % 3]}/help`);
const maskingRoots = blockedHosts.slice(15, 20).map((host) => `${host}/support`);
const unknownHosts = Array.from({ length: 200 }, (_, i) => `${word()}-unk${i}.${pick(['com', 'app', 'co.uk'])}`);

const blockedContents = [
  ...blockedHosts,
  ...blockedSubdomains,
  ...blockedPages.map((page) => `https://${page}`),
  ...idnHosts.map((host) => `https://${host}/`),
  ...ips.map((ip, i) => (i % 2 === 0 ? `http://${ip}/` : `http://${ip}/login`)),
  ...tenants,
  ...hosted,
  ...addresses,
  ...blockedChildrenOfAllowed,
];

const SUBS = ['www.', 'a.', 'a.b.', 'm.login.', '1.2.3.4.5.'];
const PATHS = [
  '',
  '/',
  '/claim',
  '/claim/',
  '/claim/now',
  '/a',
  '/a/b',
  '/a/b/',
  '/a/b/c',
  '/x/y/z',
  '/x/y/z/w',
  '/x/y',
  '/other?ref=1',
  '/a/b?x=1#top',
];

/** Ways the same place is written: scheme, case, trailing dot, port, userinfo, fragment. */
const spellings = (host: string, path: string): string[] => [
  `https://${host}${path}`,
  `http://${host.toUpperCase()}${path}`,
  `${host}${path}`,
  `https://${host}.:8443${path}#frag`,
  `https://user:pw@${host}${path}`,
];

const corpus = (): string[] => {
  const urls: string[] = [];
  for (const host of [...blockedHosts, ...blockedSubdomains, ...allowedHosts, ...blockedChildrenOfAllowed, ...hosted]) {
    for (let n = 0; n < 10; n++) urls.push(pick(spellings(`${pick(['', ...SUBS])}${host}`, pick(PATHS))));
  }
  for (const host of blockedSubdomains)
    urls.push(`https://${host.slice(host.indexOf('.') + 1)}/`, `https://other.${host.slice(host.indexOf('.') + 1)}/`);
  for (const host of pathHosts) {
    for (const path of PATHS) urls.push(`https://${host}${path}`, `https://sub.${host}${path}`);
  }
  for (const host of idnHosts) {
    const ascii = new URL(`https://${host}`).hostname;
    for (const path of ['', '/x', '/claim/now']) {
      urls.push(
        `https://${host}${path}`,
        `https://${host.toUpperCase()}${path}`,
        `https://${ascii}${path}`,
        `https://www.${host}${path}`,
      );
    }
  }
  for (const masked of [...maskingHosts, ...maskingPages, ...maskingRoots]) {
    for (const path of ['', '/', '/more', '/more/deeper/still'])
      urls.push(`https://${masked}${path}`, `https://x.${masked}${path}`);
  }
  for (const ip of ips) {
    const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
    const decimal = ((a * 256 + b) * 256 + c) * 256 + d;
    urls.push(
      `http://${ip}/`,
      `http://${ip}/login`,
      `http://${ip}/login/x`,
      `http://${decimal}/`,
      `http://0x${decimal.toString(16)}/login`,
      `http://[::ffff:${ip}]/`,
      `http://${ip}:8080/other`,
    );
  }
  for (const tenant of tenants) {
    const name = tenant.slice('https://x.com/'.length);
    urls.push(
      tenant,
      `https://twitter.com/${name.toUpperCase()}/status/1`,
      `https://x.com/${name}x`,
      `https://www.x.com/${name}/`,
    );
  }
  for (const address of addresses) urls.push(address, address.toUpperCase().replace('0X', '0x'), `ethereum:${address}`);
  for (const host of hosted) urls.push(`https://other-${host}`, `https://github.io/`);
  while (urls.length < 11_000) {
    const host = `${pick(['', ...SUBS])}${pick(unknownHosts)}`;
    urls.push(pick(spellings(host, pick(PATHS))));
  }
  return urls;
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'blocklist-org', name: 'Blocklist Org' }],
    apiKeys: [{ key: KEY, organization: 'blocklist-org' }],
    assets: [...allowedHosts, ...maskingHosts, ...maskingPages, ...maskingRoots].map((host) => ({
      organization: 'blocklist-org',
      content: `https://${host}`,
      type: 'URL',
      status: 'ALLOWED',
    })),
    activity: blockedContents.map((content, i) => ({
      organization: 'blocklist-org',
      kind: 'threat',
      id: `blk-${i}`,
      content,
      assetType: content.startsWith('0x') ? 'ADDRESS' : 'URL',
      status: 'BLOCKED',
      watchlisted: false,
      brands: [],
      createdAt: '2026-11-01T10:00:00Z',
      updatedAt: '2026-11-01T10:00:00Z',
    })),
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  direct = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v2`;
  viaProxy = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v2`;
}, 120_000);
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

const check = async (content: string): Promise<string> => {
  const response = await fetch(`${direct}/asset/check`, {
    method: 'POST',
    headers: { 'X-API-KEY': KEY },
    body: JSON.stringify({ content }),
  });
  return ((await response.json()) as { status: string }).status;
};

/** Runs `work` over `items` with a few requests in flight. */
const inParallel = async <T, R>(items: readonly T[], work: (item: T) => Promise<R>, width = 8): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
    }),
  );
  return results;
};

describe('the hash-prefix blocklist against the asset check', () => {
  it('blocks exactly what POST /asset/check blocks on 11,000 URLs, sending the service only prefixes', async () => {
    const urls = corpus();
    const client = new BlocklistClient({ suffixes, baseUrl: viaProxy, apiKey: KEY });

    await client.sync();
    const verdicts = await inParallel(urls, check);
    const lookups: { blocked: boolean; sent: number }[] = [];
    for (const url of urls) lookups.push(await client.lookup(url));

    const differences = urls
      .map((url, i) => ({ url, check: verdicts[i], client: lookups[i]?.blocked }))
      .filter(({ check: status, client: blocked }) => (status === 'BLOCKED') !== blocked);
    expect(differences).toEqual([]);
    const blocked = verdicts.filter((status) => status === 'BLOCKED').length;
    expect(blocked).toBeGreaterThan(1_000);
    expect(urls.length - blocked).toBeGreaterThan(5_000);
    // Only the version, the keys that verify it, the artifacts and confirmations of prefixes went out.
    for (const line of recorded) {
      expect(line).toMatch(
        /^(GET \/v2\/asset\/blocklist\/version |GET \/v2\/asset\/blocklist\/keys |GET \/v2\/asset\/blocklist\/artifacts\/[0-9a-f]{32} |POST \/v2\/asset\/blocklist\/confirm \{"algoVersion":1,"prefixes":\["[0-9a-f]{8}"(,"[0-9a-f]{8}")*\]\})$/,
      );
    }
    const sent = recorded.join('\n');
    const hosts = new Set(
      urls.flatMap((url) => URL.parse(url.includes('://') ? url : `https://${url}`)?.hostname ?? []),
    );
    expect([...hosts].filter((host) => host.length > 3 && sent.includes(host))).toEqual([]);
    console.info(
      `blocklist equivalence: ${urls.length} URLs, ${blocked} BLOCKED, ${recorded.filter((line) => line.startsWith('POST')).length} confirm requests, ${lookups.filter((lookup) => lookup.sent > 0).length} lookups confirmed`,
    );
  });

  it('brings an approval and a rejection to a syncing client through the recent feed, the snapshot unchanged', async () => {
    const client = new BlocklistClient({ suffixes, baseUrl: direct, apiKey: KEY, confirmTtlMs: 0 });
    await client.sync();
    const version = async () =>
      (await (await fetch(`${direct}/asset/blocklist/version`, { headers: { 'X-API-KEY': KEY } })).json()) as {
        snapshot: { token: string };
        recent: { token: string; count: number };
      };
    const before = await version();
    const content = 'https://late-drainer-e2e.xyz/claim';
    const threat = (status: string) =>
      applyActivity(suffixes, activityRepository(table.db, table.tableName), {
        organization: 'blocklist-org',
        kind: 'threat',
        id: 'late-drainer',
        content,
        assetType: 'URL',
        status,
        watchlisted: false,
        brands: [],
        createdAt: '2026-11-20T10:00:00Z',
        updatedAt: new Date().toISOString(),
      } as never);
    /** Syncs until the client's answer for the content is `blocked`; how many syncs that took. */
    const syncUntil = async (blocked: boolean) => {
      for (let syncs = 1; ; syncs++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await client.sync();
        if ((await client.lookup(content)).blocked === blocked) return syncs;
      }
    };

    await threat('BLOCKED');
    await syncUntil(true);
    const added = await version();
    await threat('REJECTED');
    await syncUntil(false);
    const removed = await version();

    expect([added.snapshot.token, removed.snapshot.token]).toEqual([before.snapshot.token, before.snapshot.token]);
    expect([before.recent.count, added.recent.count, removed.recent.count]).toEqual([0, 2, 0]);
    expect(added.recent.token).not.toBe(before.recent.token);
    expect(await check(content)).toBe('UNKNOWN');
  });
});
