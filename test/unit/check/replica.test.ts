import { describe, expect, it } from 'vitest';
import { systemTimer } from '../../../shared/db/adapters/timer.ts';
import { createChecker } from '../../../shared/domain/check/engine.ts';
import {
  BIT,
  pack,
  replicatedIndex,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
  VerdictState,
} from '../../../shared/domain/verdict-feed/index.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { snapshotOf } from '../../fixtures/verdicts.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');

/** A log with no changes that counts the reads of the whole index. */
const quietLog = () => {
  const reads = { scans: 0 };
  const log: VerdictLog = {
    readFrom: async () => [],
    indexShards: 1,
    readIndexPage: async () => {
      reads.scans++;
      return { keys: ['acme-airdrop.xyz'], states: [pack(1, BIT.block)] };
    },
  };
  return { log, reads };
};

const memorySnapshots = (): VerdictSnapshotStore & { held?: VerdictSnapshot } => ({
  async latest() {
    return this.held;
  },
  async save(snapshot) {
    this.held = snapshot;
  },
});

describe('a verdict replica with a snapshot store', () => {
  it('answers internal-error without reading the index while no snapshot exists, then the snapshot’s verdicts', async () => {
    let time = NOW;
    const { log, reads } = quietLog();
    const snapshots = memorySnapshots();
    const index = replicatedIndex({ log, snapshots, now: () => time });
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [] });

    const before = await checker.check('https://acme-airdrop.xyz/claim');
    await snapshots.save(snapshotOf(['acme-airdrop.xyz'], [pack(1, BIT.block)], time));
    time += 1_000;
    const after = await checker.check('https://acme-airdrop.xyz/claim');

    expect(before).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN', reason: 'source-error' }],
      reason: 'source-error',
      code: 'internal-error',
    });
    expect(after).toEqual({
      status: 'BLOCKED',
      source: 'service',
      sources: [{ source: 'service', status: 'BLOCKED' }],
      message: 'acme-airdrop.xyz is a reported threat',
      watchStatus: 'DISABLED',
    });
    expect(reads.scans).toBe(0);
  });

  it('does not start from a snapshot older than the log retention, and does not read the index instead', async () => {
    const { log, reads } = quietLog();
    const snapshots = memorySnapshots();
    await snapshots.save(snapshotOf(['acme-airdrop.xyz'], [pack(1, BIT.block)], NOW - 8 * 24 * 3_600_000));
    const index = replicatedIndex({ log, snapshots, now: () => NOW });

    const lookup = Promise.resolve(index.lookup(['acme-airdrop.xyz']));

    await expect(lookup).rejects.toThrow('No verdict snapshot within the log retention to start from');
    expect(reads.scans).toBe(0);
  });
});

describe('a verdict replica without a snapshot store', () => {
  it('starts from a read of the whole index', async () => {
    const { log, reads } = quietLog();
    const index = replicatedIndex({ log, now: () => NOW });

    const entries = await index.lookup(['acme-airdrop.xyz', 'acme.com']);

    expect(entries).toEqual([{ allow: 0, block: 1, watch: 0 }, undefined]);
    expect(reads.scans).toBe(1);
  });
});

describe('verdict state', () => {
  it('answers every key it holds after growing far past the size it was loaded at', () => {
    const state = new VerdictState({ keys: [], states: [], position: '0', version: '0', scannedAt: '' });
    const count = 300_000;
    for (let i = 0; i < count; i++) {
      state.apply({ key: `k${i}.example`, type: 'URL', bits: BIT.block, seq: 1, version: '0', changedAt: '' });
    }
    const held = Array.from({ length: count }, (_, i) => `k${i}.example`);
    const absent = Array.from({ length: count }, (_, i) => `absent-${i}.example`);

    const heldAnswers = state.lookup(held);
    const absentAnswers = state.lookup(absent);

    expect(heldAnswers.filter((entry) => entry?.block === 1)).toHaveLength(count);
    expect(absentAnswers.filter((entry) => entry !== undefined)).toHaveLength(0);
  });
});

describe('the age a verdict replica reports with each answer', () => {
  it('is the time since it last caught up with the log, and grows while the log cannot be read', async () => {
    let time = NOW;
    let readable = true;
    const log: VerdictLog = {
      readFrom: async () => {
        if (!readable) throw new Error('log unavailable');
        return [];
      },
      indexShards: 1,
      readIndexPage: async () => ({ keys: [], states: [] }),
    };
    const ages: number[] = [];
    const index = replicatedIndex({ log, now: () => time, onAnswer: (age) => ages.push(age) });
    const lookupAt = async (at: number) => {
      time = at;
      await index.lookup(['acme-airdrop.xyz']);
    };

    await lookupAt(NOW);
    await lookupAt(NOW + 500);
    readable = false;
    await lookupAt(NOW + 5_000);
    await lookupAt(NOW + 15_000);
    readable = true;
    await lookupAt(NOW + 20_000);

    expect(ages).toEqual([0, 500, 5_000, 15_000, 0]);
  });

  it('is the age of the snapshot it was loaded from until it first catches up', async () => {
    const log: VerdictLog = {
      readFrom: () => Promise.reject(new Error('log unavailable')),
      indexShards: 1,
      readIndexPage: async () => ({ keys: [], states: [] }),
    };
    const snapshots = memorySnapshots();
    await snapshots.save(snapshotOf(['acme-airdrop.xyz'], [pack(1, BIT.block)], NOW - 3_000));
    const ages: number[] = [];
    const index = replicatedIndex({ log, snapshots, now: () => NOW, onAnswer: (age) => ages.push(age) });

    await index.lookup(['acme-airdrop.xyz']);

    expect(ages).toEqual([3_000]);
  });
});
