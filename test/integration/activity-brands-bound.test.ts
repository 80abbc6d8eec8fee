import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { key } from '../../shared/db/keys.ts';
import {
  type ActivityRecord,
  counterShardOf,
  effectsOf,
  MAX_BRANDS_PER_RECORD,
  parseActivityChange,
} from '../../shared/domain/lifecycle/activity.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('activity-brands-bound');
const store = activityRepository(table.db, table.tableName);
const brands = (prefix: string) => Array.from({ length: MAX_BRANDS_PER_RECORD }, (_, i) => `${prefix}-${i}`);

const threat = (input: Record<string, unknown>): ActivityRecord => ({
  ...parseActivityChange({
    organization: 'org-bound',
    kind: 'threat',
    id: 't-1',
    content: 'bound-airdrop.xyz',
    assetType: 'URL',
    status: 'BLOCKED',
    createdAt: '2026-03-01T10:00:00Z',
    ...input,
  }),
  checkKey: 'bound-airdrop.xyz',
});
const brandCount = async (brand: string, day: string, shard: number) =>
  (
    await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: key.brandDay('org-bound', brand, day, shard),
        ConsistentRead: true,
      }),
    )
  ).Item?.threats_URL ?? 0;

describe('a record at the bound of its brands', () => {
  it('moves to all other brands and another day in one commit, every counter with it', async () => {
    const first = threat({ brands: brands('old') });
    const next = threat({
      brands: brands('new'),
      createdAt: '2026-03-02T10:00:00Z',
      updatedAt: '2026-03-03T00:00:00Z',
    });
    await store.commit(undefined, first, effectsOf(undefined, first));
    const stored = (await store.find(first)) as ActivityRecord;
    const shard = counterShardOf({ previous: undefined, next: first });
    const before = await brandCount('old-0', '2026-03-01', shard);

    const committed = await store.commit(stored, next, effectsOf(stored, next));

    expect(before).toBe(1);
    expect(committed).toBe(true);
    expect(await brandCount('old-0', '2026-03-01', shard)).toBe(0);
    expect(await brandCount(`old-${MAX_BRANDS_PER_RECORD - 1}`, '2026-03-01', shard)).toBe(0);
    expect(await brandCount(`new-${MAX_BRANDS_PER_RECORD - 1}`, '2026-03-02', shard)).toBe(1);
    expect((await store.find(first))?.brands).toEqual(brands('new'));
  });
});
