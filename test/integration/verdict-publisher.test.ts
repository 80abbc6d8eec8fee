import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { changeWriter, verdicts } from '../../shared/db/change-set.ts';
import { key, VERDICT_LOG } from '../../shared/db/keys.ts';
import { dynamoLease } from '../../shared/db/lease-repository.ts';
import { fileFeedStore } from '../../shared/db/verdict-feed-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import {
  type FeedDelta,
  feedSource,
  LOG_TIMING,
  positionAt,
  replicatedIndex,
  type VerdictChange,
  type VerdictLog,
  type VerdictPublisher,
  verdictPublisher,
} from '../../shared/domain/verdict-feed/index.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-publisher');
const feed = verdictFeed(table.db, table.tableName);

const write = (checkKey: string, change: { allow?: number; block?: number }) =>
  changeWriter(table.db, table.tableName).commit(() => [verdicts([{ checkKey, type: 'URL', ...change }])]);

/**
 * A publisher of the feed in `dir`. `ahead()` is how far its clock runs ahead of the writers' (it
 * sees the settle window pass without waiting for it); `leaseAhead()` how far its lease's clock
 * runs ahead of its own (it sees another's lease run out without waiting for it).
 */
const publisherOf = (
  dir: string,
  owner: string,
  leaseMs: number,
  {
    log = feed,
    ahead = () => 0,
    leaseAhead = () => 0,
  }: { log?: Pick<VerdictLog, 'readFrom'>; ahead?: () => number; leaseAhead?: () => number } = {},
) => {
  const lease = dynamoLease(table.db, table.tableName, { name: `test-${dir}`, owner, leaseMs });
  return verdictPublisher({
    log,
    feed: fileFeedStore(dir),
    lease: { hold: (at) => lease.hold(at + leaseAhead()), release: () => lease.release() },
    leaseMs,
    now: () => Date.now() + ahead(),
  });
};

/** Writes a change as an earlier version did: in the one partition of its hour. */
const writeLegacy = async (checkKey: string, stamp: number, hex: string) => {
  const hour = Math.floor(stamp / LOG_TIMING.bucketMs) * LOG_TIMING.bucketMs;
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        PK: key.legacyVerdictLogPartition(positionAt(hour)),
        SK: `${positionAt(stamp)}-${hex}-000000000001`,
        entity: 'VERDICT_CHANGE',
        key: checkKey,
        type: 'URL',
        bits: 2,
        previousBits: 0,
        seq: 1,
        changedAt: new Date(stamp).toISOString(),
      },
    }),
  );
};

/** The log, counting the reads that visit the earlier hourly partitions. */
const countingLegacyReads = () => {
  const reads = { legacy: 0 };
  const log: Pick<VerdictLog, 'readFrom'> = {
    readFrom: (from, signal, layouts) => {
      if (layouts?.legacy !== false) reads.legacy++;
      return feed.readFrom(from, signal, layouts);
    },
  };
  return { log, reads };
};

/** Every delta of the feed in `dir`, in order, up to its pointer. */
const deltasOf = async (dir: string): Promise<FeedDelta[]> => {
  const store = fileFeedStore(dir);
  const pointer = await store.pointer();
  const deltas: FeedDelta[] = [];
  for (let seq = 1; seq <= (pointer?.seq ?? 0); seq++) {
    const delta = await store.delta(seq);
    if (delta) deltas.push(delta);
  }
  return deltas;
};

describe('the verdict log in shards on DynamoDB Local', () => {
  it('puts the changes of different keys in different shard partitions and reads them back in version order', async () => {
    const from = positionAt(Date.now() - 1);
    const keys = Array.from({ length: 40 }, (_, i) => `shards-${i}.example`);
    for (const checkKey of keys) await write(checkKey, { block: 1 });

    const changes = await feed.readFrom(from);
    const day = positionAt(Math.floor(Date.now() / VERDICT_LOG.bucketMs) * VERDICT_LOG.bucketMs);
    const filled = [];
    for (let shard = 0; shard < VERDICT_LOG.shards; shard++) {
      const { Count = 0 } = await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': key.verdictLogPartition(shard, day) },
          Select: 'COUNT',
        }),
      );
      if (Count > 0) filled.push(shard);
    }

    expect(changes.map((change) => change.key).sort()).toEqual([...keys].sort());
    expect(changes.map((change) => change.version)).toEqual(changes.map((change) => change.version).sort());
    expect(filled.length).toBeGreaterThan(10);
  });

  it('reads entries an earlier version wrote in one partition per hour beside the shards', async () => {
    const stamp = Date.now() - 500;
    const version = `${positionAt(stamp)}-00000000000000aa-000000000001`;
    const hour = Math.floor(stamp / LOG_TIMING.bucketMs) * LOG_TIMING.bucketMs;
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          PK: key.legacyVerdictLogPartition(positionAt(hour)),
          SK: version,
          entity: 'VERDICT_CHANGE',
          key: 'legacy-layout.example',
          type: 'URL',
          bits: 2,
          previousBits: 0,
          seq: 1,
          changedAt: new Date(stamp).toISOString(),
        },
      }),
    );
    await write('after-legacy.example', { block: 1 });

    const read = await feed.readFrom(positionAt(stamp - 1));
    const paged = await feed.changes({ after: positionAt(stamp - 1), until: positionAt(Date.now() + 1), limit: 1000 });

    // Other tests' writes of the last moments may be read too.
    const ours = (keys: string[]) => keys.filter((name) => name.includes('legacy'));
    expect(ours(read.map((change) => change.key))).toEqual(['legacy-layout.example', 'after-legacy.example']);
    expect(ours(paged.changes.map((change) => change.key))).toEqual(['legacy-layout.example', 'after-legacy.example']);
  });

  it('pages the changelog across shards in version order, each change once, whatever the page size', async () => {
    const from = positionAt(Date.now() - 1);
    const keys = Array.from({ length: 30 }, (_, i) => `paging-${i}.example`);
    for (const checkKey of keys) await write(checkKey, { block: 1 });
    for (const checkKey of keys.slice(0, 10)) await write(checkKey, { block: -1 });
    const until = positionAt(Date.now() + 1);
    const all = (await feed.readFrom(from)).filter((change) => change.key.startsWith('paging-'));

    for (const limit of [1, 3, 7, 100]) {
      const seen: VerdictChange[] = [];
      let after: string | undefined = from;
      while (after !== undefined) {
        const page: Awaited<ReturnType<typeof feed.changes>> = await feed.changes({ after, until, limit });
        seen.push(...page.changes);
        after = page.next;
      }
      expect(seen.map((change) => change.version)).toEqual(all.map((change) => change.version));
    }
  });
});

describe('the verdict publisher on DynamoDB Local', () => {
  it('publishes from one of two publishers that start together; the other stands by', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-'));
    const a = publisherOf(dir, 'a', 10_000);
    const b = publisherOf(dir, 'b', 10_000);

    const first = await Promise.all([a.tick(), b.tick()]);
    await write('two-publishers.example', { block: 1 });
    const second = await Promise.all([a.tick(), b.tick()]);

    expect(first.map((outcome) => outcome.role).sort()).toEqual(['publisher', 'standby']);
    expect(second.map((outcome) => outcome.role)).toEqual(first.map((outcome) => outcome.role));
    const published = (await deltasOf(dir)).flatMap((delta) => delta.changes.map((change) => change.key));
    expect(published.filter((name) => name === 'two-publishers.example')).toEqual(['two-publishers.example']);
  });

  it('is taken over once the lease runs out, with every change published once in consecutive deltas', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-'));
    // Long enough that a tick's read of the log ends within the lease on a loaded machine (a
    // publisher whose lease ran out during its read steps down, as it must).
    const LEASE_MS = 10_000;
    const clock = { ahead: 0, leaseAhead: 0 };
    const a = publisherOf(dir, 'a', LEASE_MS);
    const b = publisherOf(dir, 'b', LEASE_MS, { ahead: () => clock.ahead, leaseAhead: () => clock.leaseAhead });
    await a.tick();
    const start = (await fileFeedStore(dir).pointer())?.position as string;
    const roles: string[] = [];
    let n = 0;
    // a publishes while writes go on, then stops without letting its lease go (a crash).
    for (let round = 0; round < 4; round++) {
      await write(`takeover-${n++}.example`, { block: 1 });
      roles.push(`a:${(await a.tick()).role}`, `b:${(await b.tick()).role}`);
    }
    for (let i = 0; i < 5; i++) await write(`takeover-${n++}.example`, { block: 1 });
    // a's lease runs out.
    clock.leaseAhead = LEASE_MS + 1;
    for (let round = 0; round < 4; round++) {
      await write(`takeover-${n++}.example`, { block: 1 });
      roles.push(`b:${(await b.tick()).role}`);
    }
    // The last writes settle.
    clock.ahead = LOG_TIMING.settleMs;
    roles.push(`b:${(await b.tick()).role}`);

    const deltas = await deltasOf(dir);
    const published = deltas.flatMap((delta) => delta.changes.map((change) => change.version));
    const logged = (await feed.readFrom(start)).filter((change) => change.key.startsWith('takeover-'));
    expect(roles.slice(0, 8)).toEqual(Array.from({ length: 4 }, () => ['a:publisher', 'b:standby']).flat());
    expect(roles.slice(8)).toEqual(Array.from({ length: 5 }, () => 'b:publisher'));
    expect(deltas.map((delta) => delta.seq)).toEqual(deltas.map((_, i) => i + 1));
    expect(deltas.slice(1).every((delta, i) => delta.from === deltas[i]?.position)).toBe(true);
    expect(published.filter((version) => logged.some((change) => change.version === version)).sort()).toEqual(
      logged.map((change) => change.version),
    );
    expect(new Set(published).size).toBe(published.length);
    expect(logged).toHaveLength(n);
  });

  it('publishes entries of the earlier hourly layout once, and stops reading that layout once it holds none past the position', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-'));
    const { log, reads } = countingLegacyReads();
    let ahead = 0;
    const publisher = verdictPublisher({
      log,
      feed: fileFeedStore(dir),
      lease: dynamoLease(table.db, table.tableName, { name: `test-${dir}`, owner: 'only', leaseMs: 10_000 }),
      leaseMs: 10_000,
      // The earlier version's writers are gone: the layout is read at the takeover and while it holds entries.
      legacyWritersMs: 0,
      now: () => Date.now() + ahead,
    });
    await writeLegacy('earlier-layout.example', Date.now() - 500, '00000000000000bb');
    const legacyReadsOf = async (tick: VerdictPublisher['tick']) => {
      const before = reads.legacy;
      await tick();
      return reads.legacy - before;
    };

    const whileHeld = [await legacyReadsOf(publisher.tick), await legacyReadsOf(publisher.tick)];
    // Once the position has passed the entry (the settle window later), the next read finds nothing there.
    ahead = LOG_TIMING.settleMs + 100;
    await legacyReadsOf(publisher.tick);
    await legacyReadsOf(publisher.tick);
    const afterwards = [await legacyReadsOf(publisher.tick), await legacyReadsOf(publisher.tick)];

    const published = (await deltasOf(dir)).flatMap((delta) => delta.changes.map((change) => change.key));
    expect(published.filter((name) => name === 'earlier-layout.example')).toEqual(['earlier-layout.example']);
    expect(whileHeld).toEqual([1, 1]);
    expect(afterwards).toEqual([0, 0]);
  });

  it('reads the earlier layout on every tick while its writers may run, carrying that time to a successor', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-'));
    const first = countingLegacyReads();
    const a = publisherOf(dir, 'a', 10_000, { log: first.log });
    for (let i = 0; i < 3; i++) await a.tick();
    const pointer = await fileFeedStore(dir).pointer();
    await a.stop();
    const second = countingLegacyReads();
    const b = publisherOf(dir, 'b', 10_000, { log: second.log });
    await b.tick();
    await writeLegacy('late-earlier-writer.example', Date.now(), '00000000000000cc');
    for (let i = 0; i < 2; i++) await b.tick();

    const published = (await deltasOf(dir)).flatMap((delta) => delta.changes.map((change) => change.key));
    expect(first.reads.legacy).toBe(3);
    expect(second.reads.legacy).toBe(3);
    expect(pointer?.legacyUntil).toBeGreaterThan(Date.now());
    expect((await fileFeedStore(dir).pointer())?.legacyUntil).toBe(pointer?.legacyUntil);
    expect(published.filter((name) => name === 'late-earlier-writer.example')).toEqual(['late-earlier-writer.example']);
  });

  it('feeds a replica that reads no table partition after its first read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feed-'));
    const publisher = publisherOf(dir, 'only', 10_000);
    await publisher.tick();
    let logReads = 0;
    const counted = {
      ...feed,
      readFrom: (from: string) => {
        logReads++;
        return feed.readFrom(from);
      },
    };
    const replica = replicatedIndex({ log: counted, source: feedSource(fileFeedStore(dir), counted) });
    await replica.sync();
    const readsAfterLoad = logReads;

    await write('fed-by-deltas.example', { block: 1 });
    await publisher.tick();
    await replica.sync();

    expect(await replica.lookup(['fed-by-deltas.example'])).toEqual([{ allow: 0, block: 1, watch: 0 }]);
    expect(logReads).toBe(readsAfterLoad);
  });
});
