import { beforeAll, describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { organizationMetrics } from '../../shared/domain/insights/metrics.ts';
import { type ActivityChange, applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { recount } from '../unit/metrics/recount.ts';

const table = await createTestTable('activity-demo');
const store = activityRepository(table.db, table.tableName);
const stores = {
  metrics: metricsRepository(table.db, table.tableName),
  directory: directoryRepository(table.db, table.tableName),
};
const TODAY = new Date('2026-11-21T15:00:00Z');
const TOMORROW = new Date('2026-11-22T08:00:00Z');

const applyAll = (changes: ActivityChange[]) => applyActivities(suffixes, store, changes);
/** The last version of every record, by updatedAt. */
const finalStates = (changes: ActivityChange[]) => {
  const latest = new Map<string, ActivityChange>();
  for (const change of changes) {
    const id = `${change.kind}/${change.id}`;
    const seen = latest.get(id);
    if (!seen || change.updatedAt > seen.updatedAt) latest.set(id, change);
  }
  return [...latest.values()];
};

beforeAll(async () => {
  await stores.directory.putOrganization({ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] });
  for (const slug of ['acme-wallet', 'acme-exchange'])
    await stores.directory.putBrand({ orgId: 'acme', slug, name: slug });
});

describe('demo activity', () => {
  it('gives non-trivial metrics over the last 90 days for the organization and for each brand', async () => {
    await applyAll(demoActivity(suffixes, TODAY));

    const org = await organizationMetrics(stores, 'acme', {}, '2026-11-21');
    const brands = await Promise.all(
      ['acme-wallet', 'acme-exchange'].map((brandSlug) =>
        organizationMetrics(stores, 'acme', { brandSlug }, '2026-11-21'),
      ),
    );

    expect(org.blockedByDay).toHaveLength(91);
    expect(org.blockedByDay[0]?.date).toBe('2026-08-23');
    for (const metrics of [org, ...brands]) {
      expect(metrics.metrics.reports).toBeGreaterThan(10);
      expect(metrics.metrics.newThreats).toBeGreaterThan(30);
      expect(metrics.metrics.takedownsCompleted).toBeGreaterThan(5);
      expect(metrics.blockedByType.length).toBeGreaterThan(4);
    }
    expect(org.metrics.threatsWatchlisted).toBeGreaterThan(10);
  });

  it('changes nothing when loaded again the same day, and moves the same records when loaded the next day', async () => {
    const again = await applyAll(demoActivity(suffixes, TODAY));
    await applyAll(demoActivity(suffixes, TOMORROW));

    const tomorrow = finalStates(demoActivity(suffixes, TOMORROW));
    expect(again.applied).toBe(0);
    for (const brandSlug of [undefined, 'acme-wallet', 'acme-exchange']) {
      expect(await organizationMetrics(stores, 'acme', { brandSlug }, '2026-11-22')).toEqual(
        recount(tomorrow, { orgId: 'acme', brandSlug }, {}, '2026-11-22'),
      );
    }
  });
});
