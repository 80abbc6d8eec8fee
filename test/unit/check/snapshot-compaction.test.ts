import { describe, expect, it } from 'vitest';
import {
  applyLog,
  BIT,
  compactSnapshot,
  type IndexPage,
  type IndexRebuild,
  LOG_TIMING,
  pack,
  positionAt,
  snapshotVerdicts,
  type VerdictChange,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
  VerdictState,
  versionOf,
} from '../../../shared/domain/verdict-feed/index.ts';
import { seededRandom, snapshotOf } from '../../fixtures/verdicts.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const DAY = 24 * 3_600_000;

const hexOf = (n: number) => n.toString(16).padStart(16, '0');

const change = (key: string, seq: number, bits: number, at: number): VerdictChange => ({
  key,
  type: 'URL',
  bits,
  seq,
  version: versionOf(at, hexOf(key.length * 7919 + seq), seq),
  changedAt: new Date(at).toISOString(),
});

/** A log and an index held in memory; the index is read in `shards` shards of `pageSize` entries, and counts its pages. */
const memoryLog = (changes: VerdictChange[], index: Map<string, number>, { shards = 4, pageSize = 2 } = {}) => {
  const reads = { pages: 0 };
  const shardOf = (key: string) => [...key].reduce((sum, c) => sum + c.charCodeAt(0), 0) % shards;
  const log: VerdictLog = {
    readFrom: async (from) => changes.filter((c) => c.version >= from).sort((a, b) => (a.version < b.version ? -1 : 1)),
    indexShards: shards,
    readIndexPage: async (shard, cursor) => {
      reads.pages++;
      const entries = [...index].filter(([key]) => shardOf(key) === shard);
      const start = cursor === undefined ? 0 : Number(cursor);
      const page = entries.slice(start, start + pageSize);
      const result: IndexPage = { keys: page.map(([key]) => key), states: page.map(([, state]) => state) };
      if (start + pageSize < entries.length) result.next = String(start + pageSize);
      return result;
    },
  };
  return { log, reads };
};

const memoryStore = (held?: VerdictSnapshot) => {
  const store: VerdictSnapshotStore & { held?: VerdictSnapshot; pending?: IndexRebuild } = {
    held,
    async latest() {
      return this.held;
    },
    async save(snapshot) {
      this.held = snapshot;
    },
    async rebuild() {
      return this.pending;
    },
    async saveRebuild(rebuild) {
      this.pending = rebuild;
    },
  };
  return store;
};

const asMap = (snapshot: VerdictSnapshot) => new Map(snapshot.keys.map((key, i) => [key, snapshot.states[i]]));

describe('compacting a snapshot with the log', () => {
  it('gives the state, position, version and gap count that applying the log to a replica gives, for random logs', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const next = seededRandom(seed);
      const keys = Array.from({ length: 40 }, (_, i) => `k${i}.example`);
      const held = keys.slice(0, 25);
      const previous = snapshotOf(
        held,
        held.map(() => pack(1 + Math.floor(next() * 3), Math.floor(next() * 8))),
        NOW - 60_000,
      );
      const seqs = new Map(held.map((key, i) => [key, Math.floor((previous.states[i] as number) / 8)]));
      const changes: VerdictChange[] = [];
      for (let n = 0; n < 60; n++) {
        const key = keys[Math.floor(next() * keys.length)] as string;
        // Mostly the next sequence; sometimes a replay of an old one or a jump (a lost entry).
        const roll = next();
        const seq = (seqs.get(key) ?? 0) + (roll < 0.1 ? 0 : roll < 0.2 ? 2 : 1);
        seqs.set(key, Math.max(seqs.get(key) ?? 0, seq));
        changes.push(change(key, Math.max(seq, 1), Math.floor(next() * 8), NOW - 59_000 + n * 1_000));
      }
      changes.sort((a, b) => (a.version < b.version ? -1 : 1));
      const state = VerdictState.of(previous);

      const gaps = applyLog(state, changes, NOW);
      const compacted = compactSnapshot(previous, changes, NOW, 'now');

      const expected = state.toSnapshot('now');
      expect({ ...compacted.snapshot, keys: [], states: [] }).toEqual({ ...expected, keys: [], states: [] });
      expect(asMap(compacted.snapshot)).toEqual(asMap(expected));
      expect(compacted.gaps).toBe(gaps);
    }
  });
});

describe('the snapshot job', () => {
  it('never reads the index while the log has no gap, however long ago the index was last read', async () => {
    const { log, reads } = memoryLog(
      [change('acme-airdrop.xyz', 2, BIT.block, NOW - 10_000)],
      new Map([['acme-airdrop.xyz', pack(2, BIT.block)]]),
    );
    const store = memoryStore(snapshotOf(['acme-airdrop.xyz'], [pack(1, BIT.allow)], NOW - 300_000, NOW - 6 * DAY));

    const summary = await snapshotVerdicts(log, store, () => NOW);

    expect(summary).toEqual({
      position: positionAt(NOW - LOG_TIMING.settleMs),
      version: change('acme-airdrop.xyz', 2, BIT.block, NOW - 10_000).version,
      keys: 1,
      rebuilt: false,
    });
    expect(asMap(store.held as VerdictSnapshot)).toEqual(new Map([['acme-airdrop.xyz', pack(2, BIT.block)]]));
    expect(reads.pages).toBe(0);
  });

  it('reads the index over several runs when one run has no time to read it all, and stores it when done', async () => {
    let time = NOW;
    const index = new Map(Array.from({ length: 30 }, (_, i) => [`rebuilt-${i}.example`, pack(1, BIT.block)]));
    const { log, reads } = memoryLog([], index, { shards: 4, pageSize: 2 });
    const store = memoryStore();
    // Each page read takes 20 s of a run that has 2 minutes, 90 s of which are kept for storing.
    const slow: VerdictLog = {
      ...log,
      readIndexPage: async (shard, cursor) => {
        time += 20_000;
        return log.readIndexPage(shard, cursor);
      },
    };

    const runs = [];
    for (let run = 0; run < 10 && store.held === undefined; run++) {
      runs.push(await snapshotVerdicts(slow, store, () => time, 120_000));
      time += 300_000;
    }

    expect(runs.length).toBeGreaterThan(1);
    expect(runs.slice(0, -1).every((run) => run.position === undefined && run.rebuilding !== undefined)).toBe(true);
    expect(runs.at(-1)?.rebuilt).toBe(true);
    expect(asMap(store.held as VerdictSnapshot)).toEqual(index);
    expect(store.pending).toBeUndefined();
    expect(reads.pages).toBe(4 * 4);
  });

  it('keeps storing the compacted snapshot while a rebuild after a gap goes on, then the rebuilt one', async () => {
    let time = NOW;
    const index = new Map([
      ['gap.example', pack(3, BIT.block)],
      ['other.example', pack(1, BIT.allow)],
    ]);
    // gap.example's change 2 is lost; 3 arrives. other.example's only change is lost too: only the index knows it.
    const { log } = memoryLog([change('gap.example', 3, BIT.block, NOW - 10_000)], index, { shards: 2, pageSize: 1 });
    const store = memoryStore(snapshotOf(['gap.example'], [pack(1, BIT.allow)], NOW - 300_000));
    const slow: VerdictLog = {
      ...log,
      readIndexPage: async (shard, cursor) => {
        time += 40_000;
        return log.readIndexPage(shard, cursor);
      },
    };

    const first = await snapshotVerdicts(slow, store, () => time, 120_000);
    const during = asMap(store.held as VerdictSnapshot);
    let last = first;
    for (let run = 0; run < 10 && last.rebuilding !== undefined; run++) {
      time += 300_000;
      last = await snapshotVerdicts(slow, store, () => time, 120_000);
    }

    expect([first.rebuilt, first.rebuilding !== undefined, last.rebuilt, last.rebuilding]).toEqual([
      false,
      true,
      true,
      undefined,
    ]);
    expect(during).toEqual(new Map([['gap.example', pack(3, BIT.block)]]));
    expect(asMap(store.held as VerdictSnapshot)).toEqual(index);
  });

  it('keeps the higher sequence of an entry read twice while its shard was read', async () => {
    const { log } = memoryLog([], new Map([['moved.example', pack(2, BIT.block)]]), { shards: 1 });
    const twice: VerdictLog = {
      ...log,
      readIndexPage: async () => ({
        keys: ['moved.example', 'moved.example', 'moved.example'],
        states: [pack(2, BIT.block), pack(3, BIT.allow), pack(1, 0)],
      }),
    };
    const store = memoryStore();

    await snapshotVerdicts(twice, store, () => NOW);

    expect(asMap(store.held as VerdictSnapshot)).toEqual(new Map([['moved.example', pack(3, BIT.allow)]]));
  });
});
