/**
 * Asset check throughput in-process, every in-memory source on: the check index behind its
 * warm cache (the real repository over a stubbed DynamoDB client, so no network), the shipped
 * eth-phishing-detect list and the sample vendor, SEAL and polkadot snapshots. Side by side:
 * eth-phishing-detect's own `checkDomain` on the same hosts.
 */
import { createRequire } from 'node:module';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { fileSnapshotStore } from '../../shared/db/list-snapshot-store.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { createChecker } from '../../shared/domain/check/engine.ts';
import type { EthPhishingConfig } from '../../shared/domain/check/eth-phishing-detect.ts';
import { loadExternalSources } from '../../shared/domain/check/lists.ts';
import type { CheckStatus } from '../../shared/domain/check/types.ts';
import { checkSampler } from '../../shared/domain/detections/check-samples.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { percentile } from './child.ts';

const require = createRequire(import.meta.url);
const checkDomain = require('eth-phishing-detect') as (domain: string) => boolean;
const shipped = require('eth-phishing-detect/src/config.json') as Required<
  Pick<EthPhishingConfig, 'whitelist' | 'blacklist'>
> &
  EthPhishingConfig;

const PER_SET = 3_000;
const ROUNDS = 7;
const WARMUP_PASSES = 5;
const GOAL_US = 5;
const TABLE = 'bench-check';

type Row = { name: string; value: string };

const every = <T>(items: readonly T[], count: number): T[] =>
  Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T);

/** A DynamoDB document client that answers BatchGetItem from memory, as the table would. */
const stubbedTable = (items: Map<string, Record<string, unknown>>) =>
  ({
    send: async (command: { input: { RequestItems: Record<string, { Keys: { PK: string }[] }> } }) => ({
      Responses: {
        [TABLE]: (command.input.RequestItems[TABLE]?.Keys ?? []).flatMap((k) => items.get(k.PK) ?? []),
      },
    }),
  }) as unknown as DynamoDBDocumentClient;

const serviceItems = (entries: { content: string; field: 'allow' | 'block' }[]) => {
  const items = new Map<string, Record<string, unknown>>();
  for (const { content, field } of entries) {
    const checkKey = entryKeyOf(suffixes, content) as string;
    const { PK } = key.checkEntry(checkKey);
    items.set(PK, { PK, key: checkKey, allow: 0, block: 0, watch: 0, ...items.get(PK), [field]: 1 });
  }
  return items;
};

const hostOf = (content: string) => new URL(content).hostname;

const inputs = (listed: { deny: readonly string[] }[]) => {
  const threats = Array.from({ length: 1_000 }, (_, i) => `wallet-claim-${i}.xyz`);
  const brands = Array.from({ length: 1_000 }, (_, i) => `brand-${i}.com`);
  const listedHosts = listed.flatMap((list) =>
    list.deny.filter((entry) => !entry.includes('/') && entry.includes('.')),
  );
  const third = PER_SET / 3;
  return {
    service: [
      ...threats.map((content) => ({ content, field: 'block' as const })),
      ...brands.map((content) => ({ content, field: 'allow' as const })),
    ],
    sets: {
      blocked: [
        ...every(shipped.blacklist, third).map((d) => `https://${d}/login`),
        ...every(threats, third).map((d) => `https://${d}/connect?ref=1`),
        ...every(listedHosts, third).map((d) => `https://${d}/`),
      ],
      allowed: [
        ...every(shipped.whitelist, PER_SET / 2).map((d) => `https://www.${d}/`),
        ...every(brands, PER_SET / 2).map((d) => `https://app.${d}/dashboard`),
      ],
      unknown: Array.from(
        { length: PER_SET },
        (_, i) => `https://${['shop', 'news', 'blog', 'maps'][i % 4]}.example-${i}.org/articles/${i}`,
      ),
    },
  };
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Median over rounds of the mean µs per call, and p50/p99 of single calls timed one by one. */
const measure = async (items: readonly string[], run: (item: string) => unknown) => {
  const means: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (const item of items) await run(item);
    means.push(Number(process.hrtime.bigint() - start) / 1000 / items.length);
  }
  const single: number[] = [];
  for (const item of items) {
    const start = process.hrtime.bigint();
    await run(item);
    single.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return { mean: median(means), p50: percentile(single, 0.5), p99: percentile(single, 0.99) };
};

const us = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const perSecond = (mean: number) => `${Math.round(1e6 / mean).toLocaleString('en-US')} checks/s`;

export async function benchCheck(): Promise<Row[]> {
  const snapshots = fileSnapshotStore('infra/local/lists');
  const sources = await loadExternalSources(snapshots, () => shipped);
  const lists = await Promise.all((['vendor', 'seal', 'polkadot-phishing'] as const).map((s) => snapshots.latest(s)));
  const { service, sets } = inputs(lists.flatMap((list) => (list ? [list] : [])));
  const index = checkIndexRepository(stubbedTable(serviceItems(service)), TABLE, { ttlMs: 3_600_000 });
  const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => sources });

  // Steady state, as in a warm container: the JIT has optimized both paths before any timing.
  const all = Object.values(sets).flat();
  const allHosts = all.map(hostOf);
  for (let pass = 0; pass < WARMUP_PASSES; pass++) {
    for (const content of all) await checker.check(content);
    for (const host of allHosts) checkDomain(host);
  }

  const rows: Row[] = [
    {
      name: 'sources in memory',
      value: `${sources.map((s) => s.name).join(', ')}; service index behind its warm cache (DynamoDB stubbed)`,
    },
  ];
  for (const [name, contents] of Object.entries(sets)) {
    const statuses = new Map<CheckStatus, number>();
    for (const content of contents) {
      const { status } = await checker.check(content);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const ours = await measure(contents, (content) => checker.check(content));
    const hosts = contents.map(hostOf);
    const library = await measure(hosts, (host) => checkDomain(host));
    const verdicts = [...statuses].map(([status, count]) => `${count} ${status}`).join(', ');
    rows.push(
      {
        name: `check, ${name} (${contents.length}: ${verdicts})`,
        value: `${us(ours.mean)} µs/check (p50 ${us(ours.p50)}, p99 ${us(ours.p99)}), ${perSecond(ours.mean)}; goal ≤ ${GOAL_US} µs: ${ours.mean <= GOAL_US ? 'met' : 'MISSED'}`,
      },
      {
        name: `eth-phishing-detect checkDomain, same ${name} hosts`,
        value: `${us(library.mean)} µs/check (p50 ${us(library.p50)}, p99 ${us(library.p99)}), ${perSecond(library.mean)}; ${(library.mean / ours.mean).toFixed(1)}× the full check`,
      },
    );
  }
  // The ASSET_CHECK sample the check handler adds after its answer: every unknown content offered
  // (rate 1, distinct contents, so each is buffered), batches handed to a no-op instead of the log.
  let emitted = 0;
  const sampler = checkSampler({
    rate: 1,
    batch: 25,
    maxWaitMs: 10_000,
    seenLimit: 10_000,
    emit: (batch) => {
      emitted += batch.length;
    },
  });
  let round = 0;
  const offered = await measure(sets.unknown, (content) => sampler.offer(`${content}?r=${round++}`, 'UNKNOWN'));
  sampler.flush();
  await new Promise((resolve) => setImmediate(resolve));
  rows.push({
    name: `ASSET_CHECK sample offer, unknown (${sets.unknown.length} × ${ROUNDS + 1} distinct)`,
    value: `${us(offered.mean)} µs/check (p50 ${us(offered.p50)}, p99 ${us(offered.p99)}); ${emitted.toLocaleString('en-US')} samples handed on`,
  });
  return rows;
}
