import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GAUGE_ITEMS,
  gaugeOnDay,
  INSIGHTS_COUNTED,
  insightDeltas,
  insightGaugeDeltas,
  insightHistogramDeltas,
  insightMonthDeltas,
  MONTHS_COUNTED,
} from '../../../shared/db/insight-items.ts';
import {
  bucketOf,
  CHANGED,
  groupOf,
  histogramItemOf,
  histogramPrefix,
  isGroupCounter,
  medianWindowOf,
  OPEN,
  takedownStage,
} from '../../../shared/domain/insights/insight-counters.ts';
import { windowMedian } from '../../../shared/domain/insights/insights.ts';
import type { ActivityRecord } from '../../../shared/domain/lifecycle/activity.ts';

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

describe('the median of a histogram from its groups and the buckets of one group', () => {
  it('is the bucket of the ⌈n / 2⌉th duration, from a minute to centuries', () => {
    const minutes = fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 60 * 24 * 365 * 300 }));
    fc.assert(
      fc.property(fc.array(minutes, { minLength: 1, maxLength: 60 }), (durations) => {
        const counters: Record<string, number> = {};
        for (const duration of durations) {
          const name = `${histogramPrefix('timeToBlock')}${bucketOf(duration)}`;
          counters[name] = (counters[name] ?? 0) + 1;
        }
        const sorted = [...durations].sort((a, b) => a - b);

        const window = medianWindowOf(counters, { histogram: 'timeToBlock' });

        expect(windowMedian(window)).toBe(bucketOf(sorted[Math.ceil(sorted.length / 2) - 1] as number));
        expect(window.samples).toBe(durations.length);
        expect(Object.keys(window.buckets).length).toBeLessThanOrEqual(12);
      }),
    );
  });

  it('is none for a histogram with no samples', () => {
    expect(windowMedian(medianWindowOf({}, { histogram: 'timeToTakedown' }))).toBeNull();
  });
});

describe('insightMonthDeltas and insightHistogramDeltas', () => {
  const threat = (extra: Record<string, unknown> = {}): ActivityRecord =>
    ({
      organization: 'acme',
      kind: 'threat',
      id: 't-1',
      brands: ['wallet'],
      content: 'drainer.example',
      assetType: 'URL',
      status: 'BLOCKED',
      watchlisted: false,
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
      blockedAt: '2026-03-01T12:00:00.000Z',
      deleted: false,
      counterShard: 1,
      ...extra,
    }) as ActivityRecord;
  const bucket = bucketOf(120);
  const group = groupOf(bucket);

  it('count a blocked threat by group in its month item and by bucket in the histogram item of that group', () => {
    const write = [{ previous: undefined, next: threat() }];

    const month = insightMonthDeltas(write)[0]?.deltas ?? {};
    const histograms = insightHistogramDeltas(write);

    expect(month[`i.ttbg.${group}`]).toBe(1);
    expect(month[`i.ttbg@wallet.${group}`]).toBe(1);
    expect(Object.keys(month).filter((name) => histogramItemOf(name) !== undefined)).toEqual([]);
    expect(histograms).toEqual([
      {
        orgId: 'acme',
        month: '2026-03',
        shard: 1,
        item: `ttb${group}`,
        deltas: { [`i.ttb.${bucket}`]: 1, [`i.ttb@wallet.${bucket}`]: 1 },
      },
    ]);
  });

  it('withdraw a version counted before the histogram items by its buckets in the month item, none from the histogram items', () => {
    const previous = threat({ [MONTHS_COUNTED]: GAUGE_ITEMS });
    const write = [{ previous, next: threat({ deleted: true, updatedAt: '2026-03-02T10:00:00.000Z' }) }];

    const month = insightMonthDeltas(write)[0]?.deltas ?? {};

    expect(month[`i.ttb.${bucket}`]).toBe(-1);
    expect(month[`i.ttb@wallet.${bucket}`]).toBe(-1);
    expect(Object.keys(month).filter(isGroupCounter)).toEqual([]);
    expect(insightHistogramDeltas(write)).toEqual([]);
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
