import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import { COUNTER_SHARDS } from '../../shared/domain/insights/counters.ts';
import type { ActivityRecord } from '../../shared/domain/lifecycle/activity.ts';
import {
  ABANDONED_AFTER_MS,
  createReport,
  pendingClaim,
  rollBackAbandonedReports,
} from '../../shared/domain/lifecycle/reports.ts';
import { AppError } from '../../shared/errors.ts';
import { crashingClient } from '../fixtures/crashing-client.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('report-recovery');
const directory = directoryRepository(table.db, table.tableName);
const verdicts = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });
const lists = lifecycleRepository(table.db, table.tableName);
const healthy = activityRepository(table.db, table.tableName);

/** 100 assets: three transactions (47, 47 and 6 proposals). */
const ASSETS = 100;
const CREATED = '2026-05-04T10:00:00.000Z';
const contents = (org: string) => Array.from({ length: ASSETS }, (_, i) => `${org}-drainer-${i}.example`);
const request = (org: string) => ({
  title: 'Drainer campaign',
  description: 'One hundred sites',
  assets: contents(org).map((content) => ({ content, status: 'BLOCKED' as const })),
});
const deps = (store: ReturnType<typeof activityRepository>) => ({
  store,
  verdicts,
  directory,
  ignoredHosts: [],
  suffixes,
});

/** The store calls of one report of 100 assets: the claims read, then three transactions. */
const STEPS = 4;
const SCENARIOS = Array.from({ length: STEPS }, (_, i) => i + 1).flatMap((step) =>
  (['before', 'after'] as const).map((when) => ({ org: `org-${step}-${when}`, step, when })),
);

/** Every activity record of the organization, straight from the table. */
const recordsOf = async (org: string, kind: 'report' | 'threat'): Promise<ActivityRecord[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'begins_with(PK, :prefix)',
        ExpressionAttributeValues: { ':prefix': `ACTIVITY#${org}#${kind}#` },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items as ActivityRecord[];
};

/** Reports counted in the organization's day items, over every counter shard. */
const reportsCounted = async (org: string) => {
  let sum = 0;
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { Items = [] } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': key.orgDay(org, '', shard).PK },
        ConsistentRead: true,
      }),
    );
    sum += Items.reduce((total, item) => total + (typeof item.reports === 'number' ? item.reports : 0), 0);
  }
  return sum;
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: ['org-clean', 'org-lease', 'org-stale', ...SCENARIOS.map(({ org }) => org)].map((org) => ({
      slug: org,
      name: org,
    })),
  });
});

describe('POST /report/create of more than 47 assets, interrupted', () => {
  it('writes a report of 100 assets with one claims read and three transactions when nothing fails', async () => {
    const { client, calls } = crashingClient(table.endpoint, 0, 'before');

    const created = await createReport(
      deps(activityRepository(client, table.tableName)),
      'org-clean',
      request('org-clean'),
      {
        now: CREATED,
      },
    );

    expect(created).toEqual({
      id: expect.any(Number),
      createdAt: CREATED,
      organization: { id: expect.any(Number), slug: 'org-clean', name: 'org-clean' },
    });
    expect(calls()).toBe(STEPS);
    expect(await reportsCounted('org-clean')).toBe(1);
  });

  it.each(SCENARIOS)(
    'leaves one complete report, counted once, after a crash $when store call $step and the retry of the same request',
    async ({ org, step, when }) => {
      const { client } = crashingClient(table.endpoint, step, when);
      const crashed = await createReport(deps(activityRepository(client, table.tableName)), org, request(org), {
        now: CREATED,
      }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      const countedAfterCrash = await reportsCounted(org);
      const listedAfterCrash = (
        await lists.page({ listing: 'reports', orgId: org, descending: true, filter: {}, limit: 10 })
      ).records;

      const retry = await createReport(deps(healthy), org, request(org), {
        now: new Date(Date.parse(CREATED) + ABANDONED_AFTER_MS).toISOString(),
      }).then(
        (created) => created.id,
        (error: unknown) => (error instanceof AppError ? error.code : error),
      );

      const reports = (await recordsOf(org, 'report')).filter((report) => !report.deleted);
      const proposals = (await recordsOf(org, 'threat')).filter((proposal) => !proposal.deleted);
      const holders = await healthy.claimHolders(contents(org).map((content) => pendingClaim(org, content, 'BLOCKED')));
      const listed = (await lists.page({ listing: 'reports', orgId: org, descending: true, filter: {}, limit: 10 }))
        .records;

      expect(crashed).toBe(`crash ${when} call ${step}`);
      expect([countedAfterCrash, listedAfterCrash.length]).toEqual(
        step === STEPS && when === 'after' ? [1, 1] : [0, 0],
      );
      // A crash after the last transaction applied it: the report exists, so the retry finds its claims held.
      expect(retry).toEqual(step === STEPS && when === 'after' ? 'UNPROCESSABLE_CONTENT' : expect.any(Number));
      expect(reports).toHaveLength(1);
      const [report] = reports;
      expect(report).toMatchObject({ kind: 'report', status: 'TODO' });
      expect(report).not.toHaveProperty('incomplete', true);
      expect(listed.map((record) => record.id)).toEqual([report?.id]);
      expect(await reportsCounted(org)).toBe(1);
      expect(proposals).toHaveLength(ASSETS);
      expect(proposals.every((proposal) => proposal.kind === 'threat' && proposal.reportId === report?.id)).toBe(true);
      expect(new Set(holders.values())).toEqual(new Set(proposals.map((proposal) => proposal.id)));
    },
  );

  it('answers ALREADY_PENDING_REVIEW to a retry while the interrupted report may still be written', async () => {
    const { client } = crashingClient(table.endpoint, 3, 'before');
    await createReport(deps(activityRepository(client, table.tableName)), 'org-lease', request('org-lease'), {
      now: CREATED,
    }).catch(() => undefined);

    const early = await createReport(deps(healthy), 'org-lease', request('org-lease'), {
      now: new Date(Date.parse(CREATED) + ABANDONED_AFTER_MS - 1).toISOString(),
    }).catch((error: unknown) => (error instanceof AppError ? error.code : error));

    expect(early).toBe('UNPROCESSABLE_CONTENT');
    expect(await reportsCounted('org-lease')).toBe(0);
  });

  it('withdraws every other proposal of an abandoned report when one changed after the rollback read it', async () => {
    const { client } = crashingClient(table.endpoint, STEPS, 'before');
    await createReport(deps(activityRepository(client, table.tableName)), 'org-stale', request('org-stale'), {
      now: CREATED,
    }).catch(() => undefined);
    const written = await recordsOf('org-stale', 'threat');
    const changed = written[Math.floor(written.length / 3)]?.id;
    // The rollback reads this proposal as it was before a change it does not know of.
    const staleRead: typeof healthy = {
      ...healthy,
      async find(ref) {
        const found = await healthy.find(ref);
        return found !== undefined && found.id === changed
          ? { ...found, updatedAt: '2026-05-04T09:00:00.000Z' }
          : found;
      },
    };

    await rollBackAbandonedReports(
      suffixes,
      staleRead,
      new Date(Date.parse(CREATED) + ABANDONED_AFTER_MS + 1).toISOString(),
    );

    const left = (await recordsOf('org-stale', 'threat')).filter((proposal) => !proposal.deleted);
    // Every part but the last was written: more withdrawals than one transaction holds.
    expect(written.length).toBeGreaterThan(ASSETS / 2);
    expect(left.map((proposal) => proposal.id)).toEqual([changed]);
    expect((await recordsOf('org-stale', 'report')).filter((report) => !report.deleted)).toEqual([]);
  });
});
