import { describe, expect, it } from 'vitest';
import type { Timer } from '../../../shared/domain/check/index.ts';
import { fairGate } from '../../../shared/domain/core/concurrency.ts';

/** A timer the test fires by hand. */
const manualTimer = () => {
  const pending = new Set<() => void>();
  const timer: Timer = (_ms, fire) => {
    pending.add(fire);
    return () => pending.delete(fire);
  };
  const fireAll = () => {
    for (const fire of [...pending]) {
      pending.delete(fire);
      fire();
    }
  };
  return { timer, fireAll, pending: () => pending.size };
};

/** A work that runs until the test ends it, recording when it started. */
const held = (log: string[], name: string) => {
  let end: () => void = () => {};
  const work = () =>
    new Promise<string>((resolve) => {
      log.push(name);
      end = () => resolve(name);
    });
  return { work, end: () => end() };
};

const busy = () => new Error('busy');
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('fairGate', () => {
  it('runs a waiting work of another caller before the second waiting work of a busy one', async () => {
    const { timer } = manualTimer();
    const gate = fairGate({ running: 1, waitingPerCaller: 4, maxWaitMs: 500 }, timer, busy);
    const log: string[] = [];
    const names = ['a1', 'a2', 'a3', 'b1'];
    const works = new Map(names.map((name) => [name, held(log, name)]));
    const runs = names.map((name) => gate.run(name[0] as string, (works.get(name) as ReturnType<typeof held>).work));

    // Each work ends once it has started, in the order they start.
    for (let ended = 0; ended < names.length; ended++) {
      await flush();
      works.get(log[ended] as string)?.end();
    }

    expect(await Promise.all(runs)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(log).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it('refuses a caller whose waiting works are at the bound, and not another caller', async () => {
    const { timer } = manualTimer();
    const gate = fairGate({ running: 1, waitingPerCaller: 1, maxWaitMs: 500 }, timer, busy);
    const log: string[] = [];
    const [a1, a2] = [held(log, 'a1'), held(log, 'a2')];
    const runs = [gate.run('a', a1.work), gate.run('a', a2.work)];

    const refused = expect(gate.run('a', held(log, 'a3').work)).rejects.toThrow('busy');
    const other = gate.run('b', async () => 'b1');
    a1.end();
    await flush();
    a2.end();

    await refused;
    await expect(other).resolves.toBe('b1');
    expect(await Promise.all(runs)).toEqual(['a1', 'a2']);
    expect(log).toEqual(['a1', 'a2']);
  });

  it('refuses a work that waited its longest, and gives the turn to the next one', async () => {
    const clock = manualTimer();
    const gate = fairGate({ running: 1, waitingPerCaller: 4, maxWaitMs: 500 }, clock.timer, busy);
    const log: string[] = [];
    const first = held(log, 'a1');
    const running = gate.run('a', first.work);
    const late = gate.run('a', held(log, 'a2').work);

    clock.fireAll();
    await expect(late).rejects.toThrow('busy');
    const next = gate.run('b', async () => 'b1');
    first.end();

    expect(await running).toBe('a1');
    await expect(next).resolves.toBe('b1');
    expect(clock.pending()).toBe(0);
    expect(log).toEqual(['a1']);
  });
});
