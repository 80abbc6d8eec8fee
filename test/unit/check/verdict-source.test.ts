import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BIT,
  type FeedDelta,
  type FeedPointer,
  type FeedStore,
  feedSource,
  LATE_RETRY_MS,
  LOG_TIMING,
  PUBLISHING,
  positionAt,
  replicatedIndex,
  runPublisher,
  type VerdictChange,
  type VerdictLog,
  verdictPublisher,
} from '../../../shared/domain/verdict-feed/index.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');

const change = (key: string, seq: number, bits: number, at: number): VerdictChange => ({
  key,
  type: 'URL',
  bits,
  seq,
  version: `${positionAt(at)}-0000000000000000-${String(seq).padStart(12, '0')}`,
  changedAt: new Date(at).toISOString(),
});

/** A feed in memory, as the publisher leaves it, with the reads it served. */
const memoryFeed = () => {
  const deltas = new Map<number, FeedDelta>();
  let pointer: FeedPointer | undefined;
  const reads = { pointer: 0, deltas: 0 };
  const store: FeedStore & { fail?: boolean } = {
    async pointer() {
      if (store.fail) throw new Error('object store unavailable');
      reads.pointer++;
      return pointer;
    },
    async delta(seq) {
      reads.deltas++;
      return deltas.get(seq);
    },
    async putDelta(delta) {
      if (deltas.has(delta.seq)) return false;
      deltas.set(delta.seq, delta);
      return true;
    },
    async putPointer(next) {
      pointer = next;
    },
  };
  const publish = async (from: string, changes: VerdictChange[], readAt: number) => {
    const seq = (pointer?.seq ?? 0) + 1;
    const position = positionAt(readAt - LOG_TIMING.settleMs);
    await store.putDelta({ format: 1, seq, from, position, readAt, changes });
    await store.putPointer({ format: 1, seq, position, readAt, publishedAt: readAt });
    return position;
  };
  return { store, reads, publish };
};

/** A log holding `changes`, counting its reads. */
const logOf = (changes: VerdictChange[]) => {
  const reads = { log: 0 };
  const log: VerdictLog = {
    readFrom: async (from) => {
      reads.log++;
      return changes.filter((c) => c.version >= from);
    },
    indexShards: 1,
    readIndexPage: async () => ({ keys: [], states: [] }),
  };
  return { log, reads };
};

describe('a replica on the published verdict feed', () => {
  it('reads the log once at its start, then only the pointer and the new deltas', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const { log, reads } = logOf([]);
    const start = await feed.publish(positionAt(NOW - 10_000), [], NOW);
    const index = replicatedIndex({ log, source: feedSource(feed.store, log), now: () => time });
    await index.sync();

    time += 500;
    await feed.publish(start, [change('fed.example', 1, BIT.block, time - 100)], time);
    await index.sync();

    expect(await index.lookup(['fed.example'])).toEqual([{ allow: 0, block: 1, watch: 0 }]);
    // The first sync loads (pointer, then the log) and polls (the pointer); the second reads one delta.
    expect({ ...reads, ...feed.reads }).toEqual({ log: 1, pointer: 3, deltas: 1 });
  });

  it('reads the log again when a delta does not go on from its position (the publisher skipped ahead)', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const missed = change('missed.example', 1, BIT.block, NOW + 1_000);
    const { log, reads } = logOf([missed]);
    await feed.publish(positionAt(NOW - 10_000), [], NOW);
    const index = replicatedIndex({ log, source: feedSource(feed.store, log), now: () => time });
    await index.sync();

    time = NOW + 120_000;
    await feed.publish(positionAt(time - LOG_TIMING.settleMs), [], time);
    await index.sync();

    expect(await index.lookup(['missed.example'])).toEqual([{ allow: 0, block: 1, watch: 0 }]);
    expect(reads.log).toBe(2);
  });

  it('takes a delta that goes on from pointers it did not poll without reading the log again', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const logged: VerdictChange[] = [];
    const publisher = verdictPublisher({
      log: logOf(logged).log,
      feed: feed.store,
      lease: { hold: async () => true, release: async () => {} },
      leaseMs: 10_000,
      legacyWritersMs: 0,
      now: () => time,
    });
    await publisher.tick();
    const { log, reads } = logOf(logged);
    const index = replicatedIndex({ log, source: feedSource(feed.store, log), now: () => time });
    await index.sync();
    // The publisher finds nothing for a while and moves the pointer's position on; the replica is not polled.
    for (let tick = 0; tick < 8; tick++) {
      time += PUBLISHING.tickMs;
      await publisher.tick();
    }
    logged.push(change('quiet-then.example', 1, BIT.block, time));
    time += LOG_TIMING.settleMs + PUBLISHING.tickMs;
    await publisher.tick();

    await index.sync();

    const pointer = await feed.store.pointer();
    const delta = await feed.store.delta(pointer?.seq ?? 0);
    expect(delta?.changes.map((c) => c.key)).toEqual(['quiet-then.example']);
    expect(delta?.continues).toBe(true);
    expect(await index.lookup(['quiet-then.example'])).toEqual([{ allow: 0, block: 1, watch: 0 }]);
    // The log was read once, at the replica's start.
    expect(reads.log).toBe(1);
  });

  it('polls just after the next pointer is due, again shortly while it is late, and at its own interval once a tick late', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const { log } = logOf([]);
    const start = await feed.publish(positionAt(NOW - 10_000), [], NOW);
    const index = replicatedIndex({
      log,
      source: feedSource(feed.store, log),
      now: () => time,
      pollMs: PUBLISHING.tickMs,
    });
    await index.sync();
    const polls: number[] = [];
    let seen: number | undefined;
    const flush = () => new Promise((resolve) => setImmediate(resolve));

    for (time = NOW + 10; time <= NOW + 1_000; time += 10) {
      // The next delta comes 170 ms after it was due (a slow read of the log).
      if (time === NOW + 420) await feed.publish(start, [change('late.example', 1, BIT.block, time - 100)], time);
      const before = feed.reads.pointer;
      const [answer] = await index.lookup(['late.example']);
      await flush();
      if (feed.reads.pointer > before) polls.push(time - NOW);
      if (answer !== undefined && seen === undefined) seen = time - NOW;
    }

    const due = PUBLISHING.tickMs + 50;
    expect(polls).toEqual([
      due,
      due + LATE_RETRY_MS,
      due + 2 * LATE_RETRY_MS,
      due + 3 * LATE_RETRY_MS,
      420 + due,
      ...[1, 2, 3, 4, 5].map((n) => 420 + due + n * LATE_RETRY_MS),
    ]);
    // Answered from the poll that found it (the lookup that starts a poll answers from what was held).
    expect(seen).toBe(due + 3 * LATE_RETRY_MS + 10);
  });

  it('keeps its verdicts through an object store outage and flags them stale only after staleAfterMs', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const kept = change('kept.example', 1, BIT.block, NOW - 200);
    const { log } = logOf([kept]);
    const start = await feed.publish(positionAt(NOW - 10_000), [], NOW);
    await feed.publish(start, [kept], NOW);
    const index = replicatedIndex({ log, source: feedSource(feed.store, log), now: () => time, staleAfterMs: 30_000 });
    await index.sync();

    feed.store.fail = true;
    time += 20_000;
    await index.sync();
    const during = { answer: await index.lookup(['kept.example']), stale: index.stale() };
    time += 15_000;
    await index.sync();

    expect(during).toEqual({ answer: [{ allow: 0, block: 1, watch: 0 }], stale: false });
    expect(await index.lookup(['kept.example'])).toEqual([{ allow: 0, block: 1, watch: 0 }]);
    expect(index.stale()).toBe(true);
  });

  it('is flagged stale when the publisher stopped, though every poll of the pointer succeeds', async () => {
    let time = NOW;
    const feed = memoryFeed();
    const { log } = logOf([]);
    await feed.publish(positionAt(NOW - 10_000), [], NOW);
    const index = replicatedIndex({ log, source: feedSource(feed.store, log), now: () => time, staleAfterMs: 30_000 });
    await index.sync();

    time += 31_000;
    await index.sync();

    expect(index.stale()).toBe(true);
  });
});

describe('the verdict publisher run at a fixed cadence', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes every change once, in deltas that go on from each other, when slow reads overlap the next ticks', async () => {
    // The publisher's clock and the reads' delays move with the test, not the wall clock.
    vi.useFakeTimers();
    const feed = memoryFeed();
    const logged: VerdictChange[] = [];
    let reading = 0;
    let overlapped = 0;
    let reads = 0;
    const log = {
      readFrom: async (from: string, _signal?: AbortSignal, layouts?: { shards?: boolean }) => {
        if (layouts?.shards === false) return [];
        reading++;
        if (reading > 1) overlapped++;
        // Every third read is slow: the next tick begins while it reads.
        const delay = reads++ % 3 === 0 ? 60 : 5;
        const found = logged.filter((c) => c.version >= from);
        await new Promise((resolve) => setTimeout(resolve, delay));
        reading--;
        return found;
      },
    };
    const publisher = verdictPublisher({
      log,
      feed: feed.store,
      lease: { hold: async () => true, release: async () => {} },
      leaseMs: 10_000,
      legacyWritersMs: 0,
    });
    const run = runPublisher(publisher, { tickMs: 20 });
    for (let i = 0; i < 40; i++) {
      logged.push(change(`overlap-${i}.example`, 1, BIT.block, Date.now() - LOG_TIMING.settleMs + 50));
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(200);
    const stopped = run.stop();
    await vi.advanceTimersByTimeAsync(200);
    await stopped;

    const pointer = await feed.store.pointer();
    const deltas: FeedDelta[] = [];
    for (let seq = 1; seq <= (pointer?.seq ?? 0); seq++) {
      const delta = await feed.store.delta(seq);
      if (delta !== undefined) deltas.push(delta);
    }
    const published = deltas.flatMap((delta) => delta.changes.map((c) => c.key));
    expect(overlapped).toBeGreaterThan(0);
    expect(deltas.map((delta) => delta.seq)).toEqual(deltas.map((_, i) => i + 1));
    expect(deltas.slice(1).every((delta, i) => delta.from === deltas[i]?.position)).toBe(true);
    expect(published.sort()).toEqual(logged.map((c) => c.key).sort());
  });
});
