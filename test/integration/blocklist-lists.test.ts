import { describe, expect, it } from 'vitest';
import { memoryArtifactStore } from '../../shared/db/blocklist-artifact-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { decodeArtifact } from '../../shared/domain/blocklist/artifact.ts';
import { blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { fullHash, prefixHex, prefixOf } from '../../shared/domain/blocklist/expressions.ts';
import {
  type ExternalSourceName,
  externalListsVersion,
  type ListSnapshot,
  loadExternalLists,
  type SnapshotStore,
  snapshotOf,
} from '../../shared/domain/check/index.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('blocklist-lists');

const memorySnapshots = () => {
  const held = new Map<ExternalSourceName, ListSnapshot>();
  const store: SnapshotStore = {
    latest: async (source) => held.get(source),
    pointer: async (source) => {
      const snapshot = held.get(source);
      return snapshot && { ...snapshot, entries: snapshot.allow.length + snapshot.deny.length };
    },
    save: async (snapshot) => {
      held.set(snapshot.source, snapshot);
    },
  };
  return store;
};
const polkadot = (lists: { allow: string[]; deny: string[] }, at: string) =>
  snapshotOf(suffixes, 'polkadot-phishing', JSON.stringify(lists), 'https://lists.test/all.json', new Date(at));
const prefixOfExpression = (expression: string) => prefixHex(prefixOf(fullHash(expression)));

describe('the blocklist over changing external lists', () => {
  it('publishes a new lists artifact after a list snapshot changes, looking at most once per interval, and confirms by the new lists', async () => {
    const snapshots = memorySnapshots();
    const artifacts = memoryArtifactStore();
    let clock = Date.now();
    const service = blocklist({
      suffixes,
      log: verdictFeed(table.db, table.tableName),
      artifacts,
      pollMs: 0,
      now: () => clock,
      lists: {
        version: () => externalListsVersion(snapshots),
        load: () =>
          loadExternalLists(snapshots, () => ({ blacklist: ['eth-drainer.xyz'], fuzzylist: ['metamask.io'] })),
      },
      listsMs: 60_000,
    });
    await snapshots.save(polkadot({ allow: [], deny: ['first-drainer.xyz'] }, '2026-12-01T00:00:00Z'));
    const prefixesOf = async (token: string) => {
      const artifact = decodeArtifact((await artifacts.get(token)) ?? new Uint8Array());
      return artifact.kind === 'lists' ? { prefixes: [...artifact.prefixes], lookalikes: artifact.lookalikes } : {};
    };
    const [first, second] = [prefixOfExpression('first-drainer.xyz/'), prefixOfExpression('second-drainer.xyz/')];

    const before = await service.version();
    await snapshots.save(
      polkadot({ allow: ['first-drainer.xyz'], deny: ['second-drainer.xyz'] }, '2026-12-01T00:05:00Z'),
    );
    clock += 30_000;
    const within = await service.version();
    clock += 31_000;
    await service.version();
    // The new lists are indexed in the background: the answers name them once they are stored.
    let after = await service.version();
    while (after.lists.token === before.lists.token) {
      await new Promise((resolve) => setImmediate(resolve));
      after = await service.version();
    }
    const confirmed = await service.confirm(1, [first, second]);

    expect(await prefixesOf(before.lists.token)).toEqual({
      prefixes: [prefixOf(fullHash('eth-drainer.xyz/')), Number.parseInt(first, 16)].sort((a, b) => a - b),
      lookalikes: { tolerance: 3, domains: ['metamask.io'] },
    });
    expect(within.lists).toEqual(before.lists);
    expect(await prefixesOf(after.lists.token)).toEqual({
      prefixes: [prefixOf(fullHash('eth-drainer.xyz/')), Number.parseInt(second, 16)].sort((a, b) => a - b),
      lookalikes: { tolerance: 3, domains: ['metamask.io'] },
    });
    expect(after.snapshot).toEqual(before.snapshot);
    expect(confirmed).toEqual({
      matches: { [first]: [], [second]: [fullHash('second-drainer.xyz/')] },
      allowed: {},
      verdicts: {
        [fullHash('first-drainer.xyz/')]: { 'polkadot-phishing': 'ALLOWED' },
        [fullHash('second-drainer.xyz/')]: { 'polkadot-phishing': 'BLOCKED' },
      },
    });
  });

  it('publishes an empty lists artifact where the stage publishes only the service verdicts', async () => {
    const artifacts = memoryArtifactStore();
    const service = blocklist({ suffixes, log: verdictFeed(table.db, table.tableName), artifacts, pollMs: 0 });

    const { lists } = await service.version();

    expect(lists.count).toBe(0);
    expect(decodeArtifact((await artifacts.get(lists.token)) ?? new Uint8Array())).toEqual({
      kind: 'lists',
      algoVersion: 1,
      prefixes: new Uint32Array(),
      lookalikes: { tolerance: 0, domains: [] },
    });
  });
});
