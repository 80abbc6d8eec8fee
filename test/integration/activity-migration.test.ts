import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { migrateActivityItems } from '../../shared/db/activity-migration.ts';
import { gaugeSlot } from '../../shared/db/insight-items.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import { recordNumber } from '../../shared/domain/core/ids.ts';
import { isGroupCounter } from '../../shared/domain/insights/insight-counters.ts';
import { listTakedowns, listThreats } from '../../shared/domain/lifecycle/views.ts';
import { crashingClient } from '../fixtures/crashing-client.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, type TestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('activity-migration');
const lists = lifecycleRepository(table.db, table.tableName);
const cursors = cursorCodec(() => 'migration-test-secret');
const directory = { listBrands: async () => [] };
const COUNT = 40;
/** The takedowns with open-work gauges: those to do, in progress or cancelled (FILED, IN_PROGRESS, FAILED). */
const GAUGED = (COUNT * 3) / 4;
/** The records with a histogram unit: every threat (blocked) and the completed takedowns. */
const HISTOGRAMMED = COUNT + COUNT / 4;

const at = (minutes: number) => new Date(Date.UTC(2026, 4, 1) + minutes * 60_000).toISOString();
const threat = (i: number) => ({
  organization: 'acme',
  kind: 'threat',
  // Text ids, as an ingest gives them, and a few numeric ones among them.
  id: i % 10 === 0 ? String(5_000 + i) : `ingest-t-${i}`,
  content: `https://drainer-${i}.example/claim`,
  assetType: 'URL',
  status: 'BLOCKED',
  // Named, so the load adds no backing report: these records are what the migration counts.
  reportId: `ingest-r-${i}`,
  createdAt: at(i),
});
const takedown = (i: number) => ({
  organization: 'acme',
  kind: 'takedown',
  id: `ingest-td-${i}`,
  content: `https://drainer-${i}.example/claim`,
  assetType: 'URL',
  status: ['FILED', 'IN_PROGRESS', 'FAILED', 'COMPLETED'][i % 4],
  createdAt: at(i),
});

const activityItems = async () => {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      ConsistentRead: true,
      FilterExpression: 'entity = :activity',
      ExpressionAttributeValues: { ':activity': 'ACTIVITY' },
    }),
  );
  return Items;
};

/**
 * Rewrites every activity item the way the earlier version stored it: takedowns under FILED and
 * FAILED, and records keyed by text sorted by `~<id>` after the numbers.
 */
const toEarlierLayout = async (t: TestTable) => {
  const renamed: Record<string, string> = { TODO: 'FILED', CANCELLED: 'FAILED' };
  for (const item of await activityItems()) {
    const id = item.id as string;
    const number = String(recordNumber(item.kind as string, item.organization as string, id)).padStart(16, '0');
    const earlier = /^\d+$/.test(id) ? number : `~${id}`;
    const rewritten = Object.fromEntries(
      Object.entries(item).map(([name, value]) => [
        name,
        /^(list\dSK|assetSK)$/.test(name) ? (value as string).replace(number, earlier) : value,
      ]),
    );
    if (item.kind === 'takedown') rewritten.status = renamed[item.status as string] ?? item.status;
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: rewritten }));
  }
};

const allThreatIds = async () => {
  const page = await listThreats(
    lists,
    cursors,
    'acme',
    { startDate: '2026-01-01', endDate: '2026-12-31', limit: 100 },
    '2026-06-01',
  );
  return page.threats.map((t) => t.id);
};
const allTakedowns = async () =>
  (await listTakedowns({ lists, directory }, cursors, 'acme', { limit: 100 })).takedowns.map((t) => ({
    id: t.id,
    externalId: t.externalId,
    status: t.status,
  }));
const todoTakedowns = async () =>
  (await listTakedowns({ lists, directory }, cursors, 'acme', { limit: 100, takedownStatus: ['TODO'] })).takedowns
    .length;

let current: string[] = [];
const expectedThreatIds = Array.from({ length: COUNT }, (_, i) => recordNumber('threat', 'acme', threat(i).id)).sort(
  (a, b) => a - b,
);

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    activity: [
      ...Array.from({ length: COUNT }, (_, i) => threat(i)),
      ...Array.from({ length: COUNT }, (_, i) => takedown(i)),
    ],
  });
  current = await tableSnapshot(table);
  await toEarlierLayout(table);
});

describe('npm run admin -- migrate lifecycle', () => {
  it('answers numeric ids, stable across the migration, from items of the earlier layout and after it', async () => {
    const takedownsBefore = await allTakedowns();

    expect(await tableSnapshot(table)).not.toEqual(current);
    expect([...(await allThreatIds())].sort((a, b) => a - b)).toEqual(expectedThreatIds);
    expect(takedownsBefore.map((t) => t.status).sort()).toEqual(
      Array.from({ length: COUNT }, (_, i) => ['TODO', 'IN_PROGRESS', 'CANCELLED', 'COMPLETED'][i % 4]).sort(),
    );
    expect(takedownsBefore.every((t) => t.id === recordNumber('takedown', 'acme', t.externalId as string))).toBe(true);
    expect(await todoTakedowns()).toBe(COUNT / 4);
  });

  it('finishes after a run stopped midway, writes no duplicate, and a second run changes nothing', async () => {
    const itemsBefore = (await tableSnapshot(table)).length;
    const takedownsBefore = await allTakedowns();
    const { client } = crashingClient(table.endpoint, 30, 'before');

    await expect(migrateActivityItems(client, table.tableName)).rejects.toThrow('crash before call 30');
    const partial = await tableSnapshot(table);
    const first = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});
    const migrated = await tableSnapshot(table);
    const second = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});

    expect(partial).not.toEqual(migrated);
    expect(first).toMatch(
      /^Lifecycle records: [1-9]\d* rewritten \(0 counted into the insight day items, 0 into the gauge items, 0 into the histogram items\), [1-9]\d* already current, 0 changed by a writer meanwhile; 0 metrics day items cleared of insight counters, 0 insight month items of gauges and emptied buckets$/,
    );
    expect(migrated).toEqual(current);
    expect(migrated).toHaveLength(itemsBefore);
    expect(second).toBe(
      `Lifecycle records: 0 rewritten (0 counted into the insight day items, 0 into the gauge items, 0 into the histogram items), ${COUNT * 2} already current, 0 changed by a writer meanwhile; 0 metrics day items cleared of insight counters, 0 insight month items of gauges and emptied buckets`,
    );
    expect(await tableSnapshot(table)).toEqual(current);
    expect(await allThreatIds()).toEqual(expectedThreatIds);
    expect(await allTakedowns()).toEqual(takedownsBefore);
    expect(await todoTakedowns()).toBe(COUNT / 4);
  });

  it('counts records stored with their insight counters in the metrics day items into the insight day items', async () => {
    const { Items = [] } = await table.db.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
    // Day items, their month rollups and the gauge items (an earlier layout had none of them).
    const insightItems = Items.filter((item) =>
      /#INSIGHTS(#MONTHS|#GAUGES|#H#[a-z]+\d+)?(#S\d+)?$/.test(item.PK as string),
    );
    expect(insightItems.some((item) => (item.PK as string).includes('#GAUGES'))).toBe(true);
    expect(insightItems.some((item) => (item.PK as string).includes('#MONTHS'))).toBe(true);
    const metricsItem = Items.find((item) => (item.PK as string) === 'METRICS#acme');
    expect(insightItems.length).toBeGreaterThan(0);
    expect(metricsItem).toBeDefined();
    // The earlier layout: the old marker on every record, the insight counters inside a metrics day item.
    for (const item of insightItems) {
      await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { PK: item.PK, SK: item.SK } }));
    }
    for (const item of await activityItems()) {
      const { insightItemsCounted: _marker, insightMonthsCounted: _months, ...rest } = item;
      await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...rest, insightsCounted: true } }));
    }
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...metricsItem, 'i.reports.source.direct': 3 } }),
    );

    const first = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});
    const second = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});

    expect(first).toBe(
      `Lifecycle records: ${COUNT * 2} rewritten (${COUNT * 2} counted into the insight day items, ${GAUGED} into the gauge items, ${HISTOGRAMMED} into the histogram items), 0 already current, 0 changed by a writer meanwhile; 1 metrics day items cleared of insight counters, 0 insight month items of gauges and emptied buckets`,
    );
    expect(second).toBe(
      `Lifecycle records: 0 rewritten (0 counted into the insight day items, 0 into the gauge items, 0 into the histogram items), ${COUNT * 2} already current, 0 changed by a writer meanwhile; 0 metrics day items cleared of insight counters, 0 insight month items of gauges and emptied buckets`,
    );
    expect(await tableSnapshot(table)).toEqual(current);
  });

  it('moves the open-work gauges an earlier version counted in the insight month items into the gauge items', async () => {
    const { Items = [] } = await table.db.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
    const gaugeItems = Items.filter((item) => /#INSIGHTS#GAUGES(#S\d+)?$/.test(item.PK as string));
    expect(gaugeItems.length).toBeGreaterThan(0);
    // The earlier layout: each month's gauges by day inside its month item, the records marked as counted there.
    for (const { PK, SK, ...slots } of gaugeItems) {
      const gauges = Object.entries(slots).flatMap(([name, value]) => {
        const slot = gaugeSlot(name);
        expect(slot).toBeDefined();
        return value === 0 || slot === undefined ? [] : [[`${slot.gauge}@${slot.dayOfMonth}`, value]];
      });
      const month = Items.find((item) => item.PK === (PK as string).replace('#GAUGES', '#MONTHS') && item.SK === SK);
      expect(month).toBeDefined();
      await table.db.send(
        new PutCommand({ TableName: table.tableName, Item: { ...month, ...Object.fromEntries(gauges) } }),
      );
      await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { PK, SK } }));
    }
    // And each month's histogram buckets inside its month item, which counted no groups.
    const histogramItems = Items.filter((item) => /#INSIGHTS#H#/.test(item.PK as string));
    expect(histogramItems.length).toBeGreaterThan(0);
    const monthItems = new Map(
      Items.filter((item) => /#INSIGHTS#MONTHS(#S\d+)?$/.test(item.PK as string)).map((item) => [
        `${item.PK} ${item.SK}`,
        Object.fromEntries(Object.entries(item).filter(([name]) => !isGroupCounter(name))),
      ]),
    );
    for (const { PK, SK, ...buckets } of histogramItems) {
      const monthPk = (PK as string).replace(/#H#[a-z]+\d+/, '#MONTHS');
      Object.assign(monthItems.get(`${monthPk} ${SK}`) ?? {}, buckets);
      await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { PK, SK } }));
    }
    for (const month of monthItems.values()) {
      const { Item: stored } = await table.db.send(
        new GetCommand({ TableName: table.tableName, Key: { PK: month.PK, SK: month.SK }, ConsistentRead: true }),
      );
      const legacyGauges = Object.fromEntries(Object.entries(stored ?? {}).filter(([name]) => name.includes('@')));
      await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...month, ...legacyGauges } }));
    }
    for (const item of await activityItems()) {
      await table.db.send(
        new PutCommand({ TableName: table.tableName, Item: { ...item, insightMonthsCounted: true } }),
      );
    }
    const monthsWithGauges = new Set(
      [...gaugeItems, ...histogramItems].map(
        ({ PK, SK }) => `${(PK as string).replace(/#(GAUGES|H#[a-z]+\d+)/, '#MONTHS')} ${SK}`,
      ),
    ).size;

    const first = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});
    const second = await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});

    expect(first).toBe(
      `Lifecycle records: ${COUNT * 2} rewritten (0 counted into the insight day items, ${GAUGED} into the gauge items, ${HISTOGRAMMED} into the histogram items), 0 already current, 0 changed by a writer meanwhile; 0 metrics day items cleared of insight counters, ${monthsWithGauges} insight month items of gauges and emptied buckets`,
    );
    expect(second).toBe(
      `Lifecycle records: 0 rewritten (0 counted into the insight day items, 0 into the gauge items, 0 into the histogram items), ${COUNT * 2} already current, 0 changed by a writer meanwhile; 0 metrics day items cleared of insight counters, 0 insight month items of gauges and emptied buckets`,
    );
    expect(await tableSnapshot(table)).toEqual(current);
    expect(await todoTakedowns()).toBe(COUNT / 4);
  });
});
