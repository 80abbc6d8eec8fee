import { describe, expect, it } from 'vitest';
import { backoffDelay, retry } from '../../../shared/domain/core/retry.ts';

/** A clock that only moves when something sleeps on it, and remembers each pause. */
const steppedClock = (start = 0) => {
  let now = start;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    sleep: async (ms: number) => {
      pauses.push(ms);
      now += ms;
    },
  };
};

class Busy extends Error {}

/** An attempt that fails with `error` its first `failures` times, then answers `done`. */
const failing = (failures: number, error: Error = new Busy('busy')) => {
  const calls: number[] = [];
  const attempt = async (n: number) => {
    calls.push(n);
    if (calls.length <= failures) throw error;
    return 'done';
  };
  return { calls, attempt };
};

describe('the wait before a retry', () => {
  it('doubles from the first wait up to the cap when it has no jitter', () => {
    const waits = [1, 2, 3, 4, 5, 6].map((n) => backoffDelay({ firstMs: 40, capMs: 1000, jitter: 'none' }, n));

    expect(waits).toEqual([40, 80, 160, 320, 640, 1000]);
  });

  it('lies anywhere below the capped wait under full jitter', () => {
    const backoff = { firstMs: 20, capMs: 250, jitter: 'full' } as const;

    expect([1, 2, 5].map((n) => backoffDelay(backoff, n, () => 0.5))).toEqual([10, 20, 125]);
    expect(backoffDelay(backoff, 3, () => 0)).toBe(0);
  });

  it('adds at most half of itself under added jitter', () => {
    const backoff = { firstMs: 1000, jitter: 'added' } as const;

    expect([1, 2, 3].map((n) => backoffDelay(backoff, n, () => 0))).toEqual([1000, 2000, 4000]);
    expect(backoffDelay(backoff, 2, () => 1)).toBe(3000);
  });
});

describe('retry', () => {
  const options = { maxAttempts: 4, backoff: { firstMs: 100, jitter: 'none' as const } };

  it('answers what the first successful attempt answers, after a growing pause before each retry', async () => {
    const clock = steppedClock();
    const { calls, attempt } = failing(2);

    const result = await retry(attempt, { ...options, shouldRetry: (e) => e instanceof Busy, clock });

    expect(result).toBe('done');
    expect(calls).toEqual([1, 2, 3]);
    expect(clock.pauses).toEqual([100, 200]);
  });

  it('throws a failure it should not retry at once', async () => {
    const clock = steppedClock();
    const fatal = new Error('fatal');
    const { calls, attempt } = failing(1, fatal);

    await expect(retry(attempt, { ...options, shouldRetry: (e) => e instanceof Busy, clock })).rejects.toBe(fatal);
    expect(calls).toEqual([1]);
    expect(clock.pauses).toEqual([]);
  });

  it('throws what giveUp makes of the last failure once the attempts run out', async () => {
    const clock = steppedClock();
    const { calls, attempt } = failing(10);

    const outcome = retry(attempt, {
      ...options,
      shouldRetry: (e) => e instanceof Busy,
      giveUp: (e, attempts) => new Error(`gave up after ${attempts}: ${(e as Error).message}`),
      clock,
    });

    await expect(outcome).rejects.toThrow('gave up after 4: busy');
    expect(calls).toEqual([1, 2, 3, 4]);
  });

  it('starts no retry whose pause would reach the deadline', async () => {
    const clock = steppedClock(1000);
    const { calls, attempt } = failing(10);

    const outcome = retry(attempt, { ...options, deadline: 1000 + 100 + 200, shouldRetry: () => true, clock });

    await expect(outcome).rejects.toThrow('busy');
    expect(calls).toEqual([1, 2]);
    expect(clock.pauses).toEqual([100]);
  });
});
