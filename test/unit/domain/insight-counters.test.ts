import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../../shared/domain/activity.ts';
import {
  bucketOf,
  CHANGED,
  GAUGE_ITEMS,
  gaugeOnDay,
  INSIGHTS_COUNTED,
  insightDeltas,
  insightGaugeDeltas,
  insightMonthDeltas,
  MONTHS_COUNTED,
  OPEN,
  takedownStage,
} from '../../../shared/domain/insight-counters.ts';

const takedown = (status: string, extra: Record<string, unknown> = {}): ActivityRecord =>
  ({
    organization: 'acme',
    kind: 'takedown',
    id: 'td-1',
    brands: [],
    status,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-02T10:00:00.000Z',
    deleted: false,
    ...extra,
  }) as ActivityRecord;

describe('the histogram buckets', () => {
  it('keep every minute of the first hour apart', () => {
    expect([0, 1, 59].map(bucketOf)).toEqual([0, 1, 59]);
  });

  it('hold each duration in a bucket that starts at most 5 % below it, the same bucket for the same duration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 10_000_000 }), (minutes) => {
        const bucket = bucketOf(minutes);

        expect(bucket).toBeLessThanOrEqual(minutes);
        expect(minutes).toBeLessThan(bucket * 1.05 + 1);
        expect(bucketOf(bucket)).toBe(bucket);
      }),
    );
  });
});

describe('the takedown statuses', () => {
  it('map the older names onto the published vocabulary', () => {
    expect(
      ['FILED', 'TODO', 'IN_PROGRESS', 'PENDING_INPUT', 'COMPLETED', 'FAILED', 'CANCELLED'].map(takedownStage),
    ).toEqual(['TODO', 'TODO', 'IN_PROGRESS', 'PENDING_INPUT', 'COMPLETED', 'CANCELLED', 'CANCELLED']);
  });
});

describe('insightDeltas', () => {
  it('moves an open takedown from TODO to IN_PROGRESS on its creation day when the stored version was counted', () => {
    const previous = takedown('FILED', { [INSIGHTS_COUNTED]: true, counterShard: 3 });

    const deltas = insightDeltas([{ previous, next: takedown('IN_PROGRESS') }]);

    expect(deltas).toEqual([
      {
        orgId: 'acme',
        day: '2026-03-01',
        shard: 3,
        deltas: { [OPEN.takedownsTodo]: -1, [OPEN.takedownsInProgress]: 1 },
      },
    ]);
  });

  it('adds the whole next version and withdraws nothing when the stored version predates the insight counters', () => {
    const previous = takedown('FILED', { counterShard: 3 });

    const deltas = insightDeltas([{ previous, next: takedown('IN_PROGRESS') }]);

    expect(deltas).toEqual([
      {
        orgId: 'acme',
        day: '2026-03-01',
        shard: 3,
        deltas: {
          'i.takedownsFiled.type.NONE': 1,
          'i.takedownsFiled.source.ingest': 1,
          'i.takedownsFiled.brand.NONE': 1,
          [OPEN.takedownsInProgress]: 1,
        },
      },
    ]);
  });
});

describe('insightGaugeDeltas and insightMonthDeltas', () => {
  it('move a takedown cancelled in the next month between gauge items by day, and its month items by breakdown units alone', () => {
    const previous = takedown('IN_PROGRESS', { [MONTHS_COUNTED]: GAUGE_ITEMS, counterShard: 2 });
    const next = takedown('CANCELLED', { updatedAt: '2026-04-02T10:00:00.000Z' });

    const gauges = insightGaugeDeltas([{ previous, next }]);
    const months = insightMonthDeltas([{ previous, next }]);

    expect(gauges).toEqual([
      { orgId: 'acme', month: '2026-04', shard: 2, deltas: { [gaugeOnDay(CHANGED.takedownsCancelled, '02')]: 1 } },
      { orgId: 'acme', month: '2026-03', shard: 2, deltas: { [gaugeOnDay(OPEN.takedownsInProgress, '01')]: -1 } },
    ]);
    expect(months).toEqual([]);
  });

  it('withdraw nothing from the gauge items when the stored version counted its gauges in the month items alone', () => {
    const previous = takedown('FILED', { [MONTHS_COUNTED]: true, counterShard: 2 });

    const gauges = insightGaugeDeltas([{ previous, next: takedown('IN_PROGRESS') }]);
    const months = insightMonthDeltas([{ previous, next: takedown('IN_PROGRESS') }]);

    expect(gauges).toEqual([
      { orgId: 'acme', month: '2026-03', shard: 2, deltas: { [gaugeOnDay(OPEN.takedownsInProgress, '01')]: 1 } },
    ]);
    expect(months).toEqual([]);
  });
});
