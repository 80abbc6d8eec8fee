import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../../shared/domain/webhooks/webhooks.ts';

describe('the wait before each retry', () => {
  it('grows with every retry whatever the jitter draws', () => {
    const highest = [1, 2, 3].map((attempt) => backoffMs(1000, attempt, () => 0.999));
    const lowest = [1, 2, 3].map((attempt) => backoffMs(1000, attempt, () => 0));

    expect(lowest).toEqual([1000, 2000, 4000]);
    expect(highest[0]).toBeLessThan(lowest[1] as number);
    expect(highest[1]).toBeLessThan(lowest[2] as number);
  });
});
