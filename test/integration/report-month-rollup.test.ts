import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { dayUnitsCounter, GAUGE_DAYS, gaugeOnDay } from '../../shared/db/insight-items.ts';
import { key } from '../../shared/db/keys.ts';
import { dimensionCounter, OPEN } from '../../shared/domain/insights/insight-counters.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('report-month-rollup');
const directory = directoryRepository(table.db, table.tableName);
const verdicts = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });

/** Creates a report of `assets` pending proposals on 2026-05-04; the sizes of the transactions it took. */
const reportOf = async (orgId: string, assets: number): Promise<number[]> => {
  await seed(table.db, table.tableName, { organizations: [{ slug: orgId, name: orgId }] });
  const client = createDocumentClient(table.endpoint);
  const transactions: number[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      if (items !== undefined) transactions.push(items.length);
      return next(args);
    },
    { step: 'initialize', name: 'transactionSizes' },
  );
  await createReport(
    { suffixes, store: activityRepository(client, table.tableName), verdicts, directory, ignoredHosts: [] },
    orgId,
    {
      title: `${assets} assets`,
      description: 'Pending proposals',
      assets: Array.from({ length: assets }, (_, i) => ({
        content: `${orgId}-${i}.example`,
        status: 'BLOCKED' as const,
      })),
    },
    { now: '2026-05-04T10:00:00.000Z' },
  );
  client.destroy();
  return transactions;
};

const itemOf = async (itemKey: { PK: string; SK: string }) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: itemKey, ConsistentRead: true }))).Item;

describe('a report of 47 assets, the most one transaction holds', () => {
  it('commits in one transaction of 99 items, the insight month item and the gauge item among them', async () => {
    expect(await reportOf('org-full', 47)).toEqual([99]);

    const month = await itemOf(key.insightMonth('org-full', '2026-05'));
    expect(month?.[dimensionCounter('reports', 'source', 'direct')]).toBe(1);
    expect(month?.[dayUnitsCounter('04')]).toBe(3);
    expect(Object.keys(month ?? {}).some((name) => name.includes('@'))).toBe(false);
    // Every day of the month has its slot of the gauge, zero but the report's day.
    expect(await itemOf(key.insightGauges('org-full', '2026-05'))).toEqual({
      ...key.insightGauges('org-full', '2026-05'),
      ...Object.fromEntries(GAUGE_DAYS.map((day) => [gaugeOnDay(OPEN.pendingProposals, day), day === '04' ? 47 : 0])),
    });
  });

  it('takes two transactions for 48 assets: 47 proposals first, then the last one with the completed report and its counters', async () => {
    expect(await reportOf('org-over', 48)).toEqual([95, 7]);

    expect((await itemOf(key.insightMonth('org-over', '2026-05')))?.[dayUnitsCounter('04')]).toBe(3);
    expect((await itemOf(key.insightGauges('org-over', '2026-05')))?.[gaugeOnDay(OPEN.pendingProposals, '04')]).toBe(
      48,
    );
  });
});
