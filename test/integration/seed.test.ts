import { readFileSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { parseFixture } from '../../infra/local/fixture.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { hashApiKey } from '../../shared/domain/account/api-keys.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('seed');

const snapshot = async () => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({ TableName: table.tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.map((item) => JSON.stringify(item)).sort();
};

describe('npm run seed', () => {
  it('changes nothing when the same fixture, activity included, is loaded a second time', async () => {
    const fixture = JSON.parse(readFileSync('infra/local/demo.json', 'utf8'));
    fixture.activity = demoActivity(suffixes, new Date('2026-06-01T12:00:00Z')).slice(0, 60);

    await seed(table.db, table.tableName, fixture);
    const first = await snapshot();
    await seed(table.db, table.tableName, fixture);
    const second = await snapshot();

    expect(first.length).toBeGreaterThan(100);
    expect(second).toEqual(first);
  });

  it('rejects an unknown section with a message naming the allowed ones', () => {
    expect(() => parseFixture({ widgets: [] })).toThrow(/organizations, users, apiKeys, groups, assets, activity/);
  });

  it('rejects a whole fixture whose activity has one bad entry, before writing anything', async () => {
    const fixture = {
      organizations: [{ slug: 'initech', name: 'Initech' }],
      activity: [
        { organization: 'acme', kind: 'report', id: 'r-ok', brands: [], createdAt: '2026-03-01T10:00:00Z' },
        { organization: 'acme', kind: 'report', id: 'r-bad', brands: [], createdAt: 'yesterday' },
      ],
    };

    await expect(seed(table.db, table.tableName, fixture)).rejects.toThrow(
      'Invalid activity change: createdAt must be an ISO 8601 date-time with Z or an offset',
    );
    const items = await snapshot();
    expect(items.some((item) => item.includes('r-ok') || item.includes('initech'))).toBe(false);
  });

  it("stores a key's rateLimits, and a later fixture with other limits replaces those of its classes", async () => {
    const key = 'limited-seed-key-0123456789';
    const withLimits = (check: { perSecond: number; burst: number }) => ({
      organizations: [{ slug: 'limited', name: 'Limited' }],
      apiKeys: [{ key, organization: 'limited', rateLimits: { check, report: { perSecond: 0.5, burst: 2 } } }],
    });

    await seed(table.db, table.tableName, withLimits({ perSecond: 5, burst: 5 }));
    const first = await apiKeyRepository(table.db, table.tableName).findByHash(hashApiKey(key));
    await seed(table.db, table.tableName, withLimits({ perSecond: 9, burst: 12 }));
    const second = await apiKeyRepository(table.db, table.tableName).findByHash(hashApiKey(key));

    expect(first?.rateLimits).toEqual({ check: { perSecond: 5, burst: 5 }, report: { perSecond: 0.5, burst: 2 } });
    expect(second?.rateLimits).toEqual({ check: { perSecond: 9, burst: 12 }, report: { perSecond: 0.5, burst: 2 } });
  });

  it('rejects rateLimits of an unknown class or with a budget that is not a token bucket', () => {
    const keyWith = (rateLimits: unknown) => ({
      apiKeys: [{ key: 'limited-seed-key-0123456789', organization: 'acme', rateLimits }],
    });

    expect(() => parseFixture(keyWith({ admin: { perSecond: 1, burst: 1 } }))).toThrow(/apiKeys/);
    expect(() => parseFixture(keyWith({ check: { perSecond: 0, burst: 1 } }))).toThrow(/perSecond must be above 0/);
    expect(() => parseFixture(keyWith({ check: { perSecond: 1, burst: 0.5 } }))).toThrow(/burst/);
  });
});
