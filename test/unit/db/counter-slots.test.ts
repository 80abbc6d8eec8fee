import { describe, expect, it } from 'vitest';
import { counterPeriods, key } from '../../../shared/db/keys.ts';
import {
  COUNTER_SHARDS,
  COUNTER_SLOTS,
  counterPartitionOf,
  counterSlotOf,
  spreadCounterOf,
} from '../../../shared/domain/insights/counters.ts';
import { spreadShardOf } from '../../../shared/domain/lifecycle/activity.ts';

const ids = Array.from({ length: 4000 }, (_, i) => `r-${i}`);

describe('counter items of a day in slots', () => {
  it('keeps a shard stored before slots in the one item a day its partition had', () => {
    const shards = [...Array(COUNTER_SHARDS).keys()];

    expect(shards.map((shard) => key.orgDay('acme', '2026-03-01', shard).SK)).toEqual(
      shards.map(() => 'DAY#2026-03-01'),
    );
    expect(key.insightMonth('acme', '2026-03', 5).SK).toBe('MONTH#2026-03');
  });

  it('spreads new records over every slot of every partition, each in the partition its digest chose before', () => {
    const spread = ids.map(spreadCounterOf);

    expect(new Set(spread).size).toBe(COUNTER_SHARDS * COUNTER_SLOTS);
    expect(spread.map(counterPartitionOf)).toEqual(ids.map(spreadShardOf));
    expect(Math.max(...spread.map(counterSlotOf))).toBe(COUNTER_SLOTS - 1);
  });

  it('sorts every slot of a period after it and before the next, inside the range that ends with it', () => {
    const slotted = [...Array(COUNTER_SHARDS * COUNTER_SLOTS).keys()].map((shard) => ({
      day: key.brandDay('acme', 'wallet', '2026-03-09', shard),
      month: key.insightGauges('acme', '2026-03', shard),
    }));
    const dayEnd = counterPeriods.through(key.brandDay('acme', 'wallet', '2026-03-09'));
    const monthEnd = counterPeriods.through(key.insightGauges('acme', '2026-03'));

    for (const { day, month } of slotted) {
      expect(day.SK >= 'DAY#2026-03-09' && day.SK <= dayEnd && day.SK < 'DAY#2026-03-10').toBe(true);
      expect(month.SK >= 'MONTH#2026-03' && month.SK <= monthEnd && month.SK < 'MONTH#2026-04').toBe(true);
      expect([counterPeriods.of(day.SK), counterPeriods.of(month.SK)]).toEqual(['2026-03-09', '2026-03']);
    }
    expect(dayEnd < 'DAY#2026-03-10').toBe(true);
    expect(monthEnd < 'MONTH#2026-04').toBe(true);
  });
});
