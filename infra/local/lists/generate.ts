/**
 * Writes the sample list snapshots of this directory: made-up hostnames, addresses and pages,
 * generated deterministically and canonicalized exactly as the sync function stores real lists.
 * Run with `npx tsx infra/local/lists/generate.ts`.
 */
import { shippedSuffixes } from '../../../shared/db/adapters/public-suffix-file.ts';
import { fileSnapshotStore } from '../../../shared/db/list-snapshot-store.ts';
import type { ExternalSourceName } from '../../../shared/domain/check/index.ts';
import { snapshotOf } from '../../../shared/domain/check/index.ts';

const BRANDS = ['zentrawallet', 'lumexa', 'orbifi', 'quorvex', 'nimbuswap', 'tessaract', 'velmora', 'kryptonix'];
const LURES = ['claim', 'airdrop', 'connect', 'verify', 'rewards', 'migrate', 'support', 'unlock', 'secure', 'bonus'];
const TLDS = ['xyz', 'top', 'online', 'click', 'site', 'live', 'app', 'io', 'net', 'com'];
const HOSTING = ['netlify.app', 'pages.dev', 'vercel.app', 'web.app', 'github.io', 'weebly.com'];

/** mulberry32: a small seeded generator, so the samples never change between runs. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const sample = (next: () => number) => {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const host = (i: number) => {
    const name = next() < 0.5 ? `${pick(BRANDS)}-${pick(LURES)}` : `${pick(LURES)}-${pick(BRANDS)}${i % 97}`;
    return next() < 0.3 ? `${name}.${pick(HOSTING)}` : `${name}.${pick(TLDS)}`;
  };
  const address = () => `0x${Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('')}`;
  return { pick, host, address };
};

const suffixes = shippedSuffixes();

const write = async (source: ExternalSourceName, seed: number, lists: (s: ReturnType<typeof sample>) => object) => {
  const body = JSON.stringify(lists(sample(random(seed))));
  const snapshot = snapshotOf(
    suffixes,
    source,
    body,
    `https://lists.example/${source}.json`,
    new Date('2026-01-01T00:00:00Z'),
  );
  await fileSnapshotStore(import.meta.dirname).save(snapshot);
  console.log(`${source}: ${snapshot.allow.length} allow, ${snapshot.deny.length} deny`);
};

await write('polkadot-phishing', 1, ({ host }) => ({
  allow: ['lumexa.io', 'orbifi.net', 'nimbuswap.app'],
  deny: Array.from({ length: 300 }, (_, i) => host(i)),
}));
await write('seal', 2, ({ host, address }) => ({
  deny: [...Array.from({ length: 250 }, (_, i) => host(i)), ...Array.from({ length: 50 }, address)],
}));
await write('vendor', 3, ({ host, pick }) => ({
  deny: [
    ...Array.from({ length: 200 }, (_, i) => host(i)),
    ...Array.from({ length: 50 }, (_, i) => `https://${host(i)}/${pick(['login', 'wallet/connect', 'claim'])}`),
  ],
}));
