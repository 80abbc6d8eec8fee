import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { dayUnitsCounter, dimensionCounter } from '../../shared/domain/insight-counters.ts';
import { createReport } from '../../shared/domain/reports.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('report-month-rollup');
const directory = directoryRepository(table.db, table.tableName);
const verdicts = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });

describe('a report of 48 assets, the most one transaction holds', () => {
  it('commits in one transaction of 100 items, the insight month item among them', async () => {
    await seed(table.db, table.tableName, { organizations: [{ slug: 'org-full', name: 'Full' }] });
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
    const store = activityRepository(client, table.tableName);

    await createReport(
      { store, verdicts, directory, ignoredHosts: [] },
      'org-full',
      {
        title: 'Forty-eight',
        description: 'The largest single transaction',
        assets: Array.from({ length: 48 }, (_, i) => ({ content: `full-${i}.example`, status: 'BLOCKED' as const })),
      },
      { now: '2026-05-04T10:00:00.000Z' },
    );

    expect(transactions).toEqual([100]);
    const { Item } = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: key.insightMonth('org-full', '2026-05'),
        ConsistentRead: true,
      }),
    );
    expect(Item?.[dimensionCounter('reports', 'source', 'direct')]).toBe(1);
    expect(Item?.[dayUnitsCounter('04')]).toBe(3);
  });
});
