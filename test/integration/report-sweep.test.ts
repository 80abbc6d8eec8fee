import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/maintenance/resume-writes.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { lifecycleRepository } from '../../shared/db/lifecycle-repository.ts';
import type { ActivityRecord } from '../../shared/domain/lifecycle/activity.ts';
import { ABANDONED_AFTER_MS, createReport, pendingClaim } from '../../shared/domain/lifecycle/reports.ts';
import { reviewProposal } from '../../shared/domain/lifecycle/reviews.ts';
import { crashingClient } from '../fixtures/crashing-client.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { asWorker } from '../fixtures/workers.ts';

const table = await createTestTable('report-sweep');
const healthy = activityRepository(table.db, table.tableName);
const directory = directoryRepository(table.db, table.tableName);
const verdicts = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });
const lists = lifecycleRepository(table.db, table.tableName);
const deps = (store: ReturnType<typeof activityRepository>) => ({
  store,
  verdicts,
  directory,
  ignoredHosts: [],
  suffixes,
});

const CREATED = '2026-05-04T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(CREATED) + ms).toISOString();
/** 100 assets: three transactions, so a crash before the second leaves the report incomplete. */
const contents = (org: string) => Array.from({ length: 100 }, (_, i) => `${org}-drainer-${i}.example`);
const request = (org: string) => ({
  title: 'Drainer campaign',
  description: 'One hundred sites',
  assets: contents(org).map((content) => ({ content, status: 'BLOCKED' as const })),
});

/** The scheduled function, with its clock at `now`. */
const sweepAt = (now: string) =>
  asWorker(
    'resume-interrupted-writes',
    createHandler({
      suffixes,
      groups: assetGroupRepository(table.db, table.tableName),
      reports: healthy,
      assets: assetRepository(table.db, table.tableName),
      now: () => Date.parse(now),
    }),
  )({}, { getRemainingTimeInMillis: () => 55_000 });

const liveRecords = async (org: string): Promise<ActivityRecord[]> => {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'begins_with(PK, :prefix)',
      ExpressionAttributeValues: { ':prefix': `ACTIVITY#${org}#` },
      ConsistentRead: true,
    }),
  );
  return (Items as ActivityRecord[]).filter((record) => !record.deleted);
};

/** A report of 100 assets interrupted after its first transaction: an incomplete report and 47 proposals. */
const abandon = async (org: string) => {
  const { client } = crashingClient(table.endpoint, 3, 'before');
  await expect(
    createReport(deps(activityRepository(client, table.tableName)), org, request(org), { now: CREATED }),
  ).rejects.toThrow('crash before call 3');
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: ['org-abandoned', 'org-complete', 'org-reviewed'].map((slug) => ({ slug, name: slug })),
  });
});

describe('the scheduled function, on reports abandoned between two of their transactions', () => {
  it('rolls an abandoned report back once it is older than the abandonment bound, and leaves complete reports alone', async () => {
    await abandon('org-abandoned');
    await createReport(deps(healthy), 'org-complete', request('org-complete'), { now: CREATED });
    const left = await liveRecords('org-abandoned');

    const tooEarly = await sweepAt(at(ABANDONED_AFTER_MS - 1_000));
    const afterEarly = await liveRecords('org-abandoned');
    const sweep = await sweepAt(at(ABANDONED_AFTER_MS + 1_000));
    const again = await sweepAt(at(ABANDONED_AFTER_MS + 60_000));

    const holders = await healthy.claimHolders(
      contents('org-abandoned').map((content) => pendingClaim('org-abandoned', content, 'BLOCKED')),
    );
    const listed = await lists.page({
      listing: 'reports',
      orgId: 'org-complete',
      descending: true,
      filter: {},
      limit: 10,
    });
    expect(left.map((record) => record.kind).sort()).toEqual(['report', ...Array<string>(47).fill('threat')]);
    expect(left.find((record) => record.kind === 'report')).toMatchObject({ incomplete: true });
    expect(tooEarly).toEqual({
      abandonedReports: 0,
      bulkAdds: { published: 0, undone: 0 },
      finished: 0,
      unfinished: 0,
    });
    expect(afterEarly).toHaveLength(48);
    expect(sweep).toEqual({ abandonedReports: 1, bulkAdds: { published: 0, undone: 0 }, finished: 0, unfinished: 0 });
    expect(await liveRecords('org-abandoned')).toEqual([]);
    expect(holders.size).toBe(0);
    expect(again.abandonedReports).toBe(0);
    expect(listed.records).toHaveLength(1);
    expect(await liveRecords('org-complete')).toHaveLength(101);
  });

  it('lets the same report be made again, whole, once the abandoned one is rolled back', async () => {
    const created = await createReport(deps(healthy), 'org-abandoned', request('org-abandoned'), {
      now: at(ABANDONED_AFTER_MS + 2_000),
    });

    const records = await liveRecords('org-abandoned');

    expect(created.id).toEqual(expect.any(Number));
    expect(records).toHaveLength(101);
    expect(records.find((record) => record.kind === 'report')).not.toHaveProperty('incomplete', true);
  });

  it('rolls back an abandoned report one of whose 47 written proposals was approved, unblocking its content', async () => {
    await abandon('org-reviewed');
    const [approved] = (await liveRecords('org-reviewed')).filter(
      (record): record is ActivityRecord & { kind: 'threat'; assetId: number } => record.kind === 'threat',
    );
    await reviewProposal(
      { suffixes, store: healthy, verdicts, directory, dailyLimit: 0 },
      'org-reviewed',
      Number(approved?.id),
      { assetId: approved?.assetId ?? 0, decision: 'APPROVE', label: 'General Phishing' },
      Date.parse(at(1_000)),
    );

    const sweep = await sweepAt(at(ABANDONED_AFTER_MS + 1_000));

    expect(sweep).toEqual({ abandonedReports: 1, bulkAdds: { published: 0, undone: 0 }, finished: 0, unfinished: 0 });
    expect(await liveRecords('org-reviewed')).toEqual([]);
  });
});
