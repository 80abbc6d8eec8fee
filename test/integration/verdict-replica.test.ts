import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { dynamoLease } from '../../shared/db/lease-repository.ts';
import { fileFeedStore } from '../../shared/db/verdict-feed-store.ts';
import { logEntryKey, verdictFeed } from '../../shared/db/verdict-log.ts';
import { fileVerdictSnapshotStore } from '../../shared/db/verdict-snapshot-store.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import {
  bitsOfPacked,
  entryOfBits,
  feedSource,
  PUBLISHING,
  positionAt,
  type ReplicatedIndex,
  readWholeIndex,
  replicatedIndex,
  runPublisher,
  snapshotVerdicts,
  verdictPublisher,
} from '../../shared/domain/verdict-feed/index.ts';
import { seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { seededRandom } from '../fixtures/verdicts.ts';

const table = await createTestTable('verdict-replica');
const feed = verdictFeed(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const snapshots = fileVerdictSnapshotStore(await mkdtemp(join(tmpdir(), 'verdicts-')));

const WRITERS = 6;
const REPLICAS = 3;
const OPERATIONS = 30;
const CONTENTS = Array.from({ length: 12 }, (_, i) => `replica-${i}.example`);

/** Each writer has its own repositories, like separate Lambda containers, and changes verdicts of shared contents. */
const writer = async (id: number, operations: number) => {
  const assets = assetRepository(table.db, table.tableName);
  const activity = activityRepository(table.db, table.tableName);
  const next = seededRandom(id + 1);
  const owned = new Set<number>();
  for (let n = 0; n < operations; n++) {
    const content = CONTENTS[Math.floor(next() * CONTENTS.length)] as string;
    const choice = next();
    if (choice < 0.3) {
      const { results } = await addAssets(suffixes, assets, groups, id % 2 ? 'acme' : 'globex', [
        { content: `https://${id}.${content}`, type: 'URL' },
      ]);
      const [added] = results;
      if (added?.success) owned.add(added.id);
    } else if (choice < 0.45 && owned.size > 0) {
      const [assetId] = owned;
      owned.delete(assetId as number);
      await removeAsset(assets, id % 2 ? 'acme' : 'globex', assetId as number);
    } else {
      const statuses = ['BLOCKED', 'APPROVED', 'REJECTED', 'PENDING'];
      await applyActivity(suffixes, activity, {
        organization: 'acme',
        kind: 'threat',
        id: `t-${id}-${Math.floor(next() * 4)}`,
        content,
        assetType: 'URL',
        status: statuses[Math.floor(next() * statuses.length)],
        watchlisted: next() < 0.3,
        brands: [],
        createdAt: '2026-03-01T10:00:00Z',
        updatedAt: new Date(Date.parse('2026-03-01T10:00:00Z') + n * 1000 + id).toISOString(),
      } as never);
    }
  }
};

/** What a full read of the index says, key by key, beside what a replica answers for the same keys. */
const compare = async (replica: ReplicatedIndex) => {
  const { keys, states } = await readWholeIndex(feed);
  const expected = keys.map((_, i) => entryOfBits(bitsOfPacked(states[i] as number)));
  return { actual: await replica.lookup(keys), expected };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
});

describe('verdict replicas on DynamoDB Local', () => {
  it.each([
    ['the log', 'log'],
    ['the published feed, with the publisher running', 'feed'],
  ] as const)(
    `equal a full read of the index at their first poll after ${WRITERS} concurrent writers stop, reading %s`,
    async (_, mode) => {
      await snapshotVerdicts(feed, snapshots, Date.now);
      const feedDir = await mkdtemp(join(tmpdir(), 'feed-'));
      const publisher = verdictPublisher({
        log: feed,
        feed: fileFeedStore(feedDir),
        lease: dynamoLease(table.db, table.tableName, { name: `replica-${feedDir}`, owner: 'test', leaseMs: 10_000 }),
        leaseMs: 10_000,
      });
      const publishing = mode === 'feed' ? runPublisher(publisher, { tickMs: PUBLISHING.tickMs }) : undefined;
      await publisher.tick();
      const replicas = Array.from({ length: REPLICAS }, () =>
        replicatedIndex({
          log: feed,
          snapshots,
          ...(mode === 'feed' ? { source: feedSource(fileFeedStore(feedDir), feed) } : {}),
        }),
      );
      await Promise.all(replicas.map((replica) => replica.sync()));
      let writing = true;
      // Checks keep arriving while the writers run, so the replicas poll (at most once a second each).
      const checking = Promise.all(
        replicas.map(async (replica) => {
          while (writing) {
            await replica.lookup(CONTENTS);
            await sleep(50);
          }
        }),
      );

      await Promise.all(Array.from({ length: WRITERS }, (_, id) => writer(id, OPERATIONS)));
      writing = false;
      await checking;
      // The publisher's last delta holds every write made before it.
      await publishing?.stop();
      if (mode === 'feed') await publisher.tick();
      await Promise.all(replicas.map((replica) => replica.sync()));

      for (const replica of replicas) {
        const { actual, expected } = await compare(replica);
        expect(actual).toEqual(expected);
      }
      expect(expect.getState().assertionCalls).toBe(REPLICAS);
    },
  );

  it('recovers through a newer snapshot when log entries are missing, even of keys that never change again', async () => {
    const activity = activityRepository(table.db, table.tableName);
    const threat = (n: number, status: string, updatedAt: string) =>
      applyActivity(suffixes, activity, {
        organization: 'globex',
        kind: 'threat',
        id: `gap-${n}`,
        content: `gap-${n}.example`,
        assetType: 'URL',
        status,
        brands: [],
        createdAt: '2026-03-01T10:00:00Z',
        updatedAt,
      } as never);
    const gaps: number[] = [];
    const replica = replicatedIndex({ log: feed, snapshots, onGap: (count) => gaps.push(count) });
    await replica.sync();
    const before = positionAt(Date.now() - 1);
    for (let n = 0; n < 4; n++) await threat(n, 'BLOCKED', '2026-03-01T10:00:00Z');
    const lost = await feed.readFrom(before);
    await table.db.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: lost.map((change) => ({
            DeleteRequest: { Key: logEntryKey(change.version) },
          })),
        },
      }),
    );
    // Two of the four change again, so their sequences jump; the other two are lost silently.
    for (let n = 0; n < 2; n++) await threat(n, 'REJECTED', '2026-03-02T10:00:00Z');
    const job = await snapshotVerdicts(feed, snapshots, Date.now);

    await replica.sync();

    const { actual, expected } = await compare(replica);
    expect({ lost: lost.length, gaps, rebuilt: job.rebuilt }).toEqual({ lost: 4, gaps: [2], rebuilt: true });
    expect(await replica.lookup(['gap-2.example', 'gap-3.example'])).toEqual([
      { allow: 0, block: 1, watch: 0 },
      { allow: 0, block: 1, watch: 0 },
    ]);
    expect(actual).toEqual(expected);
  });
});
