import { mkdtemp, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSnapshotStore, SHIPPED_ETH_LIST } from '../../shared/db/list-snapshot-store.ts';
import type { EthPhishingConfig, ExternalSourceName, ListSnapshot } from '../../shared/domain/check/index.ts';
import { snapshotOf } from '../../shared/domain/check/index.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { seededRandom } from '../fixtures/verdicts.ts';

const table = await createTestTable('e2e-blocklist-lists');
// This file's own lists, before any function builds its dependencies (they read LISTS_DIR once).
const listsDir = await mkdtemp(join(tmpdir(), 'blocklist-lists-'));
process.env.LISTS_DIR = listsDir;
const { createGateway } = await import('../../infra/local/gateway.ts');
const { BlocklistClient } = await import('../../shared/blocklist-client/client.ts');
const runtime = await import('../../shared/runtime.ts');
const { createChecker } = await import('../../shared/domain/check/index.ts');

const KEY = 'blocklist-lists-key-0123456789abcdef';
const gateway = createGateway();
let base = '';

const random = seededRandom(20_261_207);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const sample = <T>(items: readonly T[], count: number): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, count);
};
const word = (length = 6 + Math.floor(random() * 5)) =>
  Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');

/**
 * Where the precedence rules meet: an allowlisting on a parent in one list against a block in
 * another, the service's verdicts against the lists', `www.` entries, tenants of hosting platforms.
 */
const EDGES = {
  ethBlock: [
    'www.only-www-listed.com',
    'evil-child.eth-allowed-parent.com',
    'blocked-by-eth-allowed-by-org.com',
    'eth-blocked-parent.com',
    't.me',
    'cross-allowed-by-polkadot.com',
    'eth-blocked-tenant.github.io',
    'service-allowed-path.com',
  ],
  ethAllow: ['eth-allowed-parent.com', 'cross-allowed-by-eth.com', 'github.io'],
  polkadotAllow: ['polka-allowed-parent.com', 'good.polka-parent.com', 'cross-allowed-by-polkadot.com'],
  polkadotDeny: ['sub.polka-allowed-parent.com', 'polka-parent.com', 'cross-allowed-by-eth.com/phish'],
  sealDeny: ['org-allowed-seal-blocked.com', 'polka-allowed-parent.com/drain', 'seal-tenant.github.io'],
  vendorDeny: ['service-blocked-and-vendor.com', 'eth-allowed-parent.com'],
  serviceAllow: [
    'blocked-by-eth-allowed-by-org.com',
    'good.eth-blocked-parent.com',
    'org-allowed-seal-blocked.com',
    'service-allowed-path.com/help',
  ],
  serviceBlock: ['service-blocked-and-vendor.com', 'eth-allowed-parent.com/claim', 'cross-allowed-by-eth.com'],
};

const shipped = JSON.parse(await readFile(SHIPPED_ETH_LIST, 'utf8')) as Required<
  Pick<EthPhishingConfig, 'fuzzylist' | 'whitelist' | 'blacklist' | 'tolerance'>
>;
const ethConfig = {
  version: 2,
  tolerance: shipped.tolerance,
  fuzzylist: shipped.fuzzylist,
  whitelist: [...sample(shipped.whitelist, 250), ...EDGES.ethAllow],
  blacklist: [...sample(shipped.blacklist, 1_500), ...EDGES.ethBlock],
};
const localSnapshot = async (source: ExternalSourceName) =>
  JSON.parse(await readFile(join('infra/local/lists', `${source}.json`), 'utf8')) as ListSnapshot;
const fetchedAt = new Date('2026-12-01T00:00:00Z');
const lists: ListSnapshot[] = [
  snapshotOf(suffixes, 'eth-phishing-detect', JSON.stringify(ethConfig), 'https://lists.test/eth.json', fetchedAt),
  snapshotOf(
    suffixes,
    'polkadot-phishing',
    JSON.stringify({
      allow: [...(await localSnapshot('polkadot-phishing')).allow, ...EDGES.polkadotAllow],
      deny: [...(await localSnapshot('polkadot-phishing')).deny, ...EDGES.polkadotDeny],
    }),
    'https://lists.test/polkadot.json',
    fetchedAt,
  ),
  snapshotOf(
    suffixes,
    'seal',
    JSON.stringify([...(await localSnapshot('seal')).deny, ...EDGES.sealDeny]),
    'https://lists.test/seal.json',
    fetchedAt,
  ),
  snapshotOf(
    suffixes,
    'vendor',
    [...(await localSnapshot('vendor')).deny, ...EDGES.vendorDeny].join('\n'),
    'https://lists.test/vendor.txt',
    fetchedAt,
  ),
];

/** The service's own verdicts: some on listed entries, some of their own. */
const serviceAllowed = [...EDGES.serviceAllow, ...sample(ethConfig.blacklist, 12)];
const serviceBlocked = [
  ...EDGES.serviceBlock,
  ...sample(ethConfig.whitelist, 6),
  ...Array.from({ length: 100 }, (_, i) => `${word()}-svc${i}.${pick(['com', 'io', 'xyz'])}`),
];

/** One content written the ways a client meets it: bare, a subdomain, a page under it, `www.`. */
const variants = (entry: string): string[] =>
  entry.startsWith('0x')
    ? [entry, `ethereum:${entry}`]
    : [`https://${entry}`, `https://sub.${entry}`, `http://www.${entry}/deeper/page?x=1`];

/** Within eth-phishing-detect's tolerance of a protected domain, or just outside it. */
const lookalikes = (domain: string): string[] => {
  const dot = domain.lastIndexOf('.');
  const [name, tld] = [domain.slice(0, dot), domain.slice(dot + 1)];
  const swapped = name.length > 3 ? `${name[1]}${name[0]}${name.slice(2)}` : name;
  return [
    `https://${name}.xyz/`,
    `https://${swapped}.${tld}/login`,
    `https://${name.slice(0, -1)}.com`,
    `https://www.${name}x.${tld}`,
    `https://${name}-wallet-${word(4)}.${tld}`,
  ];
};

const corpus = (): string[] => {
  const entries = new Set<string>();
  for (const list of lists) for (const entry of [...list.allow, ...list.deny]) entries.add(entry);
  for (const entry of [...serviceAllowed, ...serviceBlocked]) entries.add(entry);
  const urls = [...entries].flatMap(variants);
  for (const domain of ethConfig.fuzzylist) urls.push(...lookalikes(domain));
  urls.push('https://t.me/someone', 'https://github.io/', 'https://other-tenant.github.io/');
  while (urls.length < 10_000) {
    urls.push(pick([`https://${word()}.${pick(['com', 'org', 'app', 'co.uk'])}/${word(4)}`, `${word()}.net`]));
  }
  return urls.slice(0, 10_000);
};

beforeAll(async () => {
  const store = fileSnapshotStore(listsDir);
  for (const list of lists) await store.save(list);
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'lists-org', name: 'Lists Org' }],
    apiKeys: [{ key: KEY, organization: 'lists-org' }],
    assets: serviceAllowed.map((content) => ({
      organization: 'lists-org',
      content: `https://${content}`,
      type: 'URL',
      status: 'ALLOWED',
    })),
    activity: serviceBlocked.map((content, i) => ({
      organization: 'lists-org',
      kind: 'threat',
      id: `lists-blk-${i}`,
      content,
      assetType: 'URL',
      status: 'BLOCKED',
      watchlisted: false,
      brands: [],
      createdAt: '2026-11-01T10:00:00Z',
      updatedAt: '2026-11-01T10:00:00Z',
    })),
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/v2`;
}, 120_000);
afterAll(async () => {
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

describe('prefix sync with the external lists', () => {
  it('blocks exactly what the asset check blocks on 10,000 URLs, list-blocked ones included, sending only prefixes', {
    timeout: 600_000,
  }, async () => {
    const urls = corpus();
    // The check as POST /asset/check composes it (the same replica and lists), called in-process.
    const checker = createChecker({
      suffixes,
      timer: runtime.timer,
      index: runtime.checkIndex(),
      sources: runtime.externalSources(),
    });
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${String(input).replace(base, '')} ${init?.body ?? ''}`);
      return fetch(input, init);
    };
    const client = new BlocklistClient({ suffixes, baseUrl: base, apiKey: KEY, fetch: recording });

    // Both sides follow the verdict log; the comparison starts once each shows every seeded verdict.
    const seeded = [...serviceAllowed, ...serviceBlocked].map((content) => `https://${content}`);
    const expected = seeded.map((_, i) => i >= serviceAllowed.length);
    const caughtUp = async () => {
      await client.sync();
      const checked = await Promise.all(seeded.map(async (url) => (await checker.check(url)).status === 'BLOCKED'));
      const looked = (await client.lookupAll(seeded)).map(({ blocked }) => blocked);
      return JSON.stringify([checked, looked]) === JSON.stringify([expected, expected]);
    };
    while (!(await caughtUp())) await new Promise((resolve) => setTimeout(resolve, 200));
    const verdicts = await Promise.all(urls.map(async (url) => (await checker.check(url)).status));
    const lookups: Awaited<ReturnType<typeof client.lookupAll>> = [];
    for (let start = 0; start < urls.length; start += 1_000) {
      lookups.push(...(await client.lookupAll(urls.slice(start, start + 1_000))));
    }

    const differences = urls
      .map((url, i) => ({ url, check: verdicts[i], client: lookups[i]?.blocked }))
      .filter(({ check, client: blocked }) => (check === 'BLOCKED') !== blocked);
    expect(differences).toEqual([]);
    const blocked = verdicts.filter((status) => status === 'BLOCKED').length;
    const allowed = verdicts.filter((status) => status === 'ALLOWED').length;
    expect(blocked).toBeGreaterThan(4_000);
    expect(allowed).toBeGreaterThan(500);
    for (const line of sent) {
      expect(line).toMatch(
        /^(GET \/asset\/blocklist\/version |GET \/asset\/blocklist\/keys |GET \/asset\/blocklist\/artifacts\/[0-9a-f]{32} |POST \/asset\/blocklist\/confirm \{"algoVersion":1,"prefixes":\["[0-9a-f]{8}"(,"[0-9a-f]{8}")*\]\})$/,
      );
    }
    console.info(
      `blocklist with lists: ${urls.length} URLs, ${blocked} BLOCKED, ${allowed} ALLOWED, ${client.size} prefixes held, ${sent.filter((line) => line.startsWith('POST')).length} confirm requests`,
    );
  });
});
