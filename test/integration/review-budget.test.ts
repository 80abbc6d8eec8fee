import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import { reviewProposal } from '../../shared/domain/lifecycle/reviews.ts';
import { TooManyRequestsError } from '../../shared/errors.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('review-budget');
const store = activityRepository(table.db, table.tableName);
const directory = directoryRepository(table.db, table.tableName);
const verdicts = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });
const T0 = Date.parse('2026-06-01T08:00:00.000Z');
const DAY = 86_400_000;

/** A report of `count` assets in a new organization; its proposals, in order. */
const proposalsOf = async (org: string, count: number) => {
  await directory.putOrganization({ slug: org, name: org, featureFlags: [] });
  const ids = await createReport(
    { suffixes, store, verdicts, directory, ignoredHosts: [] },
    org,
    {
      title: 'Drainers',
      description: '',
      assets: Array.from({ length: count }, (_, i) => ({ content: `${org}-drainer-${i}.example`, status: 'BLOCKED' })),
    },
    { now: new Date(T0 - 60_000).toISOString() },
  );
  const report = await store.find({ organization: org, kind: 'report', id: String(ids.id) });
  return report?.kind === 'report' ? (report.proposals ?? []) : [];
};

const reject = (dailyLimit: number, org: string, proposal: { id: number; assetId: number }, now: number) =>
  reviewProposal(
    { suffixes, store, verdicts, directory, dailyLimit },
    org,
    proposal.id,
    { assetId: proposal.assetId, decision: 'REJECT', rejectReason: 'decayed' },
    now,
  );

beforeAll(() => seed(table.db, table.tableName, {}));

describe('the review budget on DynamoDB Local', () => {
  it('allows 10 reviews per organization in any 24 hours, then answers 429 until the oldest leaves the window', async () => {
    const proposals = await proposalsOf('budget-rolling', 12);
    for (const [i, proposal] of proposals.slice(0, 10).entries())
      await reject(10, 'budget-rolling', proposal, T0 + i * 1000);

    const refused = await reject(10, 'budget-rolling', proposals[10] as (typeof proposals)[number], T0 + 60_000).catch(
      (error: unknown) => error,
    );
    const stillRefused = await reject(
      10,
      'budget-rolling',
      proposals[10] as (typeof proposals)[number],
      T0 + DAY - 1,
    ).catch((error: unknown) => error);
    const allowed = await reject(10, 'budget-rolling', proposals[10] as (typeof proposals)[number], T0 + DAY);
    const refusedAgain = await reject(
      10,
      'budget-rolling',
      proposals[11] as (typeof proposals)[number],
      T0 + DAY + 2,
    ).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).message).toBe('Review limit of 10 per day reached for this organization.');
    expect((refused as TooManyRequestsError).retryAfterSeconds).toBe((DAY - 60_000) / 1000);
    expect(stillRefused).toBeInstanceOf(TooManyRequestsError);
    expect(allowed.proposal.reviewStatus).toBe('REJECTED');
    expect((refusedAgain as TooManyRequestsError).retryAfterSeconds).toBe(1);
  });

  it('lets exactly the limit through when reviews of one organization race', async () => {
    const proposals = await proposalsOf('budget-race', 14);

    const outcomes = await Promise.allSettled(proposals.map((proposal) => reject(10, 'budget-race', proposal, T0)));

    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect(refused).toHaveLength(4);
    for (const outcome of refused)
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(TooManyRequestsError);
  });

  it('keeps one organization’s reviews out of another’s budget, and a limit of 0 unlimited', async () => {
    const spent = await proposalsOf('budget-spent', 2);
    const other = await proposalsOf('budget-other', 3);
    await reject(1, 'budget-spent', spent[0] as (typeof spent)[number], T0);

    const refused = await reject(1, 'budget-spent', spent[1] as (typeof spent)[number], T0 + 1).catch(
      (e: unknown) => e,
    );
    const otherOrg = await reject(1, 'budget-other', other[0] as (typeof other)[number], T0 + 1);
    const unlimited = await Promise.all(other.slice(1).map((proposal) => reject(0, 'budget-other', proposal, T0 + 2)));

    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(otherOrg.proposal.reviewStatus).toBe('REJECTED');
    expect(unlimited.map((r) => r.proposal.reviewStatus)).toEqual(['REJECTED', 'REJECTED']);
  });
});
