import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { GAUGE_ITEMS, MONTHS_COUNTED } from '../../shared/db/insight-items.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import {
  bucketOf,
  groupCounterOf,
  type HistogramRef,
  histogramItemOf,
  isGroupCounter,
  MAX_TAKEDOWN_MINUTES,
} from '../../shared/domain/insights/insight-counters.ts';
import { windowMedian } from '../../shared/domain/insights/insights.ts';
import { type ActivityChange, applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('insight-histogram-groups');
const store = activityRepository(table.db, table.tableName);
const metrics = metricsRepository(table.db, table.tableName);
const ORG = 'acme';
const TODAY = '2026-03-20';
const MINUTE = 60_000;
const REFS: HistogramRef[] = [
  { histogram: 'timeToBlock' },
  { histogram: 'timeToTakedown' },
  { histogram: 'timeToBlock', brand: 'wallet' },
];
const RANGES: [string | undefined, string][] = [
  [undefined, TODAY],
  ['2026-02-01', '2026-02-28'],
  ['2026-02-10', TODAY],
  ['2026-03-05', '2026-03-15'],
  ['2026-01-01', TODAY],
];

/** Durations from a minute to over a year, so the medians fall in groups far apart. */
const DURATIONS = [1, 7, 45, 61, 200, 1_500, 9_000, 40_000, 300_000, 600_000];
const createdOf = (i: number) => Date.parse('2026-02-01T00:00:00Z') + (i % 47) * 86_400_000 + (i % 13) * 3_600_000;
type Spec = { kind: 'threat' | 'takedown'; i: number; minutes: number; brands: string[]; deleted: boolean };
const threatSpec = (i: number, deleted = false): Spec => ({
  kind: 'threat',
  i,
  minutes: DURATIONS[(i * 7) % 10] as number,
  brands: i % 3 === 0 ? ['wallet'] : [],
  deleted,
});
const takedownSpec = (i: number): Spec => ({
  kind: 'takedown',
  i,
  minutes: DURATIONS[(i * 3) % 10] as number,
  brands: [],
  deleted: false,
});
const changeOf = ({ kind, i, minutes, brands, deleted }: Spec): ActivityChange => {
  const createdAt = new Date(createdOf(i)).toISOString();
  // A deletion is a later version of the record.
  const updatedAt = new Date(createdOf(i) + minutes * MINUTE + (deleted ? 86_400_000 : 0)).toISOString();
  const base = { organization: ORG, id: `${kind}-${i}`, brands, createdAt, updatedAt, deleted };
  return kind === 'threat'
    ? { ...base, kind, content: `threat-${i}.example`, assetType: 'URL', status: 'BLOCKED', watchlisted: false }
    : { ...base, kind, status: 'COMPLETED' };
};

/** The live records, as the test wrote them. */
const live = new Map<string, Spec>();
const apply = async (specs: Spec[]) => {
  const results = await applyActivities(suffixes, store, specs.map(changeOf));
  for (const spec of specs) {
    if (spec.deleted) live.delete(`${spec.kind}-${spec.i}`);
    else live.set(`${spec.kind}-${spec.i}`, spec);
  }
  return results;
};

/** Each median worked out from the records themselves: the bucket of the ⌈n / 2⌉th duration. */
const bruteForce = (from: string | undefined, to: string) =>
  REFS.map((ref) => {
    const minutes = [...live.values()]
      .filter((spec) => (ref.histogram === 'timeToBlock' ? spec.kind === 'threat' : spec.kind === 'takedown'))
      .filter((spec) => ref.brand === undefined || spec.brands.includes(ref.brand))
      .filter((spec) => ref.histogram === 'timeToBlock' || spec.minutes <= MAX_TAKEDOWN_MINUTES)
      .filter((spec) => {
        const day = new Date(createdOf(spec.i)).toISOString().slice(0, 10);
        return (from === undefined || day >= from) && day <= to;
      })
      .map((spec) => spec.minutes)
      .sort((a, b) => a - b);
    return minutes.length === 0 ? null : bucketOf(minutes[Math.ceil(minutes.length / 2) - 1] as number);
  });
const read = async (from: string | undefined, to: string) =>
  (await metrics.medianWindows(ORG, from, to, REFS)).map(windowMedian);

const insightItems = async () => {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'begins_with(PK, :insights)',
      ExpressionAttributeValues: { ':insights': `METRICS#${ORG}#INSIGHTS#` },
      ConsistentRead: true,
    }),
  );
  return Items;
};
const isMonthItem = (item: Record<string, unknown>) => /#INSIGHTS#MONTHS(#S\d+)?$/.test(item.PK as string);
const isHistogramItem = (item: Record<string, unknown>) => /#INSIGHTS#H#/.test(item.PK as string);

describe('histogram medians read from the month items by group, then from the one histogram item holding them', () => {
  it('equal the medians of the records over whole months, cut months and days alone', async () => {
    await seed(table.db, table.tableName, {
      organizations: [{ slug: ORG, name: 'Acme', brands: [{ slug: 'wallet', name: 'Wallet' }] }],
    });
    await apply([
      ...Array.from({ length: 150 }, (_, i) => threatSpec(i)),
      ...Array.from({ length: 60 }, (_, i) => takedownSpec(i)),
    ]);

    for (const [from, to] of RANGES) expect(await read(from, to)).toEqual(bruteForce(from, to));
    expect(bruteForce(undefined, TODAY).every((median) => median !== null)).toBe(true);
    // Month items hold groups and no bucket; each histogram item holds buckets of its own group alone.
    const items = await insightItems();
    expect(items.filter(isHistogramItem).length).toBeGreaterThan(3);
    for (const item of items.filter(isMonthItem)) {
      expect(Object.keys(item).filter((name) => histogramItemOf(name) !== undefined)).toEqual([]);
    }
    for (const item of items.filter(isHistogramItem)) {
      const own = (item.PK as string).replace(/^.*#H#/, '').replace(/#S\d+$/, '');
      const buckets = Object.keys(item).filter((name) => name !== 'PK' && name !== 'SK');
      expect(buckets.map(histogramItemOf)).toEqual(buckets.map(() => own));
    }
  });

  it('are right again once migrate lifecycle moves the buckets an earlier version kept in the month items', async () => {
    // The earlier layout: buckets in the month items, no groups, no histogram items, records marked so.
    for (const item of await insightItems()) {
      if (isHistogramItem(item)) {
        const buckets = Object.entries(item).filter(([name]) => name !== 'PK' && name !== 'SK');
        const monthPk = (item.PK as string).replace(/#H#[a-z]+\d+/, '#MONTHS');
        await table.db.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { PK: monthPk, SK: item.SK },
            UpdateExpression: `ADD ${buckets.map((_, i) => `#b${i} :b${i}`).join(', ')}`,
            ExpressionAttributeNames: Object.fromEntries(buckets.map(([name], i) => [`#b${i}`, name])),
            ExpressionAttributeValues: Object.fromEntries(buckets.map(([, value], i) => [`:b${i}`, value])),
          }),
        );
        await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { PK: item.PK, SK: item.SK } }));
      }
      if (isMonthItem(item)) {
        const groups = Object.keys(item).filter(isGroupCounter);
        await table.db.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `REMOVE ${groups.map((_, i) => `#g${i}`).join(', ')}`,
            ExpressionAttributeNames: Object.fromEntries(groups.map((name, i) => [`#g${i}`, name])),
          }),
        );
      }
    }
    const { Items: records = [] } = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'entity = :activity',
        ExpressionAttributeValues: { ':activity': 'ACTIVITY' },
      }),
    );
    for (const record of records) {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { PK: record.PK, SK: record.SK },
          UpdateExpression: 'SET #marker = :earlier',
          ExpressionAttributeNames: { '#marker': MONTHS_COUNTED },
          ExpressionAttributeValues: { ':earlier': GAUGE_ITEMS },
        }),
      );
    }
    expect(await read('2026-02-01', '2026-02-28')).toEqual([null, null, null]);

    // Writers of this version meanwhile: new records, and records counted the earlier way withdrawn.
    expect(
      await apply([
        ...Array.from({ length: 30 }, (_, i) => threatSpec(150 + i)),
        ...Array.from({ length: 20 }, (_, i) => threatSpec(i * 5, true)),
      ]),
    ).toEqual({ applied: 50, ignored: 0 });

    const first = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});
    const settled = await insightItems();
    const second = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});

    // 130 live threats, and the 48 takedowns whose time to take down is counted.
    expect(first).toMatch(/ 0 into the gauge items, 178 into the histogram items\), .*; 0 metrics day items cleared/);
    expect(second).toMatch(/, 0 into the histogram items\), /);
    for (const [from, to] of RANGES) expect(await read(from, to)).toEqual(bruteForce(from, to));
    for (const item of settled.filter(isMonthItem)) {
      const left = Object.entries(item).filter(([name, value]) => histogramItemOf(name) !== undefined && value !== 0);
      expect(left).toEqual([]);
      const groups = Object.entries(item).filter(([name, value]) => isGroupCounter(name) && value !== 0);
      expect(groups.every(([name]) => groupCounterOf(name) === undefined)).toBe(true);
    }
    expect(await insightItems()).toEqual(settled);
  });
});
