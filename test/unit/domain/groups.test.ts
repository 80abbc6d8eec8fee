import { describe, expect, it } from 'vitest';
import {
  type Clock,
  type GroupRecords,
  groupStore,
  type RemovalStep,
} from '../../../shared/domain/allowlist/groups.ts';
import { NotFoundError } from '../../../shared/errors.ts';

/** A clock that only moves when the process pauses, or by `tick` per step. */
const fakeClock = (tick = 0) => {
  let now = 1_000_000;
  const pauses: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      pauses.push(ms);
      now += ms;
    },
  };
  return { clock, pauses, advance: () => (now += tick) };
};

/** Group records whose removals ungroup by the scripted steps, one per call. */
const scriptedRecords = (
  steps: RemovalStep[],
  { gone = false, onStep = () => undefined }: { gone?: boolean; onStep?: () => void } = {},
) => {
  const calls: string[] = [];
  const records: GroupRecords = {
    list: async () => [],
    create: async () => ({ id: 1, name: 'g', assetCount: 0 }),
    rename: async () => ({ id: 1, name: 'g', assetCount: 0 }),
    namesOf: async () => new Map(),
    delete: async () => (gone ? undefined : 3),
    ungroupNext: async (orgId, id) => {
      calls.push(`${orgId}/${id}`);
      onStep();
      return steps.shift() ?? 'done';
    },
    async *unfinishedRemovals() {
      yield [
        { orgId: 'a', groupId: 1 },
        { orgId: 'b', groupId: 2 },
      ];
    },
  };
  return { records, calls };
};
const TIMING = { inlineBudgetMs: 1500, lagPauseMs: 200 };

describe('groupStore: removing a group', () => {
  it('ungroups step by step until done, pausing only while the listing lags, and answers the count', async () => {
    const { clock, pauses } = fakeClock();
    const { records, calls } = scriptedRecords(['progress', 'lagging', 'progress', 'done']);

    const count = await groupStore(records, clock, TIMING).remove('acme', 7);

    expect(count).toBe(3);
    expect(calls).toEqual(['acme/7', 'acme/7', 'acme/7', 'acme/7']);
    expect(pauses).toEqual([200]);
  });

  it('stops at its budget, leaving the rest to the sweeper', async () => {
    const { clock, advance } = fakeClock(500);
    const { records, calls } = scriptedRecords(Array<RemovalStep>(10).fill('progress'), { onStep: advance });

    await groupStore(records, clock, TIMING).remove('acme', 7);

    expect(calls).toHaveLength(3);
  });

  it('resumes the removal a concurrent delete left, then answers 404', async () => {
    const { clock } = fakeClock();
    const { records, calls } = scriptedRecords(['progress', 'done'], { gone: true });

    const outcome = groupStore(records, clock, TIMING).remove('acme', 7);

    await expect(outcome).rejects.toBeInstanceOf(NotFoundError);
    expect(calls).toHaveLength(2);
  });

  it('answers the count when a step fails, telling whoever watches that the sweeper takes over', async () => {
    const { clock } = fakeClock();
    const deferred: unknown[] = [];
    const { records } = scriptedRecords([], {
      onStep: () => {
        throw new Error('busy');
      },
    });

    const count = await groupStore(records, clock, {
      ...TIMING,
      onDeferred: (_orgId, _id, error) => deferred.push(error),
    }).remove('acme', 7);

    expect(count).toBe(3);
    expect(deferred).toEqual([new Error('busy')]);
  });
});

describe('groupStore: resuming removals', () => {
  it('finishes those it reaches before the deadline and counts the others unfinished', async () => {
    const { clock, advance } = fakeClock(600);
    const { records, calls } = scriptedRecords(['progress', 'done', 'progress', 'progress'], { onStep: advance });

    const outcome = await groupStore(records, clock, TIMING).resumeRemovals(1_000_000 + 1500);

    expect(outcome).toEqual({ finished: 1, unfinished: 1 });
    expect(calls).toEqual(['a/1', 'a/1', 'b/2']);
  });
});
