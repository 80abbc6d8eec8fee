import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import type { AssetType } from '../../shared/domain/allowlist/asset-types.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { organizationMetrics } from '../../shared/domain/insights/metrics.ts';
import { type ActivityChange, applyActivity, TAKEDOWN_STATUSES } from '../../shared/domain/lifecycle/activity.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { recount } from '../unit/metrics/recount.ts';

const table = await createTestTable('activity-concurrency');
const directory = directoryRepository(table.db, table.tableName);
const stores = { metrics: metricsRepository(table.db, table.tableName), directory };

const ORG = 'busy';
const BRANDS = ['north', 'south'];
const RECORDS = 400;
const VERSIONS = 5;
const DELIVERIES = 3;
const WRITERS = 8;
const TODAY = '2026-03-31';

/** A fixed pseudo-random sequence, so a failure can be replayed. */
const sequence = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};

const eventsOf = (random: () => number): ActivityChange[][] =>
  Array.from({ length: RECORDS }, (_, n) => {
    const kind = (['report', 'threat', 'takedown'] as const)[n % 3] ?? 'report';
    // Five days only: every writer keeps hitting the same day items.
    const created = Date.UTC(2026, 2, 1 + (n % 5), n % 24);
    return Array.from({ length: VERSIONS }, (_, v) => {
      const base = {
        organization: ORG,
        id: `r-${n}`,
        brands: BRANDS.filter(() => random() < 0.5),
        createdAt: new Date(created).toISOString(),
        updatedAt: new Date(created + (v + 1) * 7 * 3_600_000).toISOString(),
        deleted: random() < 0.1,
      };
      if (kind === 'report') return { ...base, kind };
      if (kind === 'takedown') {
        return { ...base, kind, status: TAKEDOWN_STATUSES[v % TAKEDOWN_STATUSES.length] ?? 'TODO' };
      }
      return {
        ...base,
        kind,
        content: `threat-${n % 50}.example`,
        assetType: (['URL', 'TWITTER', 'TELEGRAM', 'DISCORD'] as AssetType[])[v % 4] ?? 'URL',
        status: (['PENDING', 'BLOCKED', 'APPROVED', 'REJECTED', 'AUTO_APPROVED'] as const)[(n + v) % 5] ?? 'PENDING',
        watchlisted: random() < 0.3,
      };
    });
  });

// 6,000 transactions, each also maintaining the record's listing indexes: over a minute on a busy machine.
describe('concurrent activity writers on DynamoDB Local', () => {
  it('end with exact counters when 8 writers ingest the same 2,000 events, each delivered 3 times', async () => {
    await directory.putOrganization({ slug: ORG, name: ORG, featureFlags: ['brands-metrics'] });
    for (const slug of BRANDS) await directory.putBrand({ orgId: ORG, slug, name: slug });
    const random = sequence(42);
    const history = eventsOf(random);
    const events = history.flat();
    for (let i = events.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [events[i], events[j]] = [events[j] as ActivityChange, events[i] as ActivityChange];
    }
    // Each event goes to 3 of the writers at about the same moment, so copies race each other.
    const queues: ActivityChange[][] = Array.from({ length: WRITERS }, () => []);
    events.forEach((event, i) => {
      for (const offset of [0, 1, 3].slice(0, DELIVERIES)) queues[(i + offset) % WRITERS]?.push(event);
    });

    const outcomes = await Promise.all(
      queues.map(async (queue) => {
        // Each writer has its own client, like separate Lambda containers.
        const store = activityRepository(createDocumentClient(table.endpoint), table.tableName);
        const results = { applied: 0, ignored: 0 };
        for (const event of queue) results[await applyActivity(suffixes, store, event)]++;
        return results;
      }),
    );

    const finals = history.map((versions) => versions[VERSIONS - 1] as ActivityChange);
    const applied = outcomes.reduce((sum, outcome) => sum + outcome.applied, 0);
    expect(applied).toBeGreaterThanOrEqual(RECORDS);
    expect(applied).toBeLessThanOrEqual(RECORDS * VERSIONS);
    for (const brandSlug of [undefined, ...BRANDS]) {
      const query = { brandSlug };
      expect(await organizationMetrics(stores, ORG, query, TODAY)).toEqual(
        recount(finals, { orgId: ORG, brandSlug }, {}, TODAY),
      );
    }
    for (let n = 0; n < 50; n++) {
      const checkKey = entryKeyOf(suffixes, `threat-${n}.example`, 'URL') as string;
      const blocking = finals.filter(
        (r) =>
          r.kind === 'threat' &&
          !r.deleted &&
          ['BLOCKED', 'APPROVED', 'AUTO_APPROVED'].includes(r.status) &&
          entryKeyOf(suffixes, r.content, r.assetType) === checkKey,
      );
      const { Item } = await table.db.send(
        new GetCommand({ TableName: table.tableName, Key: key.checkEntry(checkKey), ConsistentRead: true }),
      );
      expect({ block: Item?.block ?? 0, watch: Item?.watch ?? 0 }).toEqual({
        block: blocking.length,
        watch: blocking.filter((r) => r.kind === 'threat' && r.watchlisted).length,
      });
    }
  }, 180_000);
});
