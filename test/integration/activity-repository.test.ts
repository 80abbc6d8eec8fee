import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { type ActivityRecord, effectsOf, parseActivityChange } from '../../shared/domain/activity.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('activity-repository');
const store = activityRepository(table.db, table.tableName);

/** One threat per test, each of its own organization and content, so tests share no item. */
const threatOf = (orgId: string, input: Record<string, unknown> = {}) =>
  parseActivityChange({
    organization: orgId,
    kind: 'threat',
    id: 't-1',
    content: `${orgId}-airdrop.xyz`,
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    ...input,
  });
const blockedThreat = (orgId: string): ActivityRecord => ({ ...threatOf(orgId), checkKey: `${orgId}-airdrop.xyz` });
const rejectedThreat = (orgId: string): ActivityRecord =>
  threatOf(orgId, { status: 'REJECTED', updatedAt: '2026-03-02T00:00:00Z' });

const read = async (itemKey: { PK: string; SK: string }) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: itemKey, ConsistentRead: true }))).Item;
/** The counters of an item, without its keys or anything else. */
const counters = async (itemKey: { PK: string; SK: string }, names: string[]) => {
  const item = (await read(itemKey)) ?? {};
  return Object.fromEntries(names.map((name) => [name, item[name] ?? 0]));
};
/** What a threat of `orgId` moved: its day counters in the organization and its brand, and its check-index entry. */
const moved = async (orgId: string) => ({
  organization: await counters(key.orgDay(orgId, '2026-03-01'), ['threats_URL', 'total']),
  brand: await counters(key.brandDay(orgId, 'wallet', '2026-03-01'), ['threats_URL', 'total']),
  check: await counters(key.checkEntry(`${orgId}-airdrop.xyz`), ['allow', 'block', 'watch']),
});
const NONE_MOVED = {
  organization: { threats_URL: 0, total: 0 },
  brand: { threats_URL: 0, total: 0 },
  check: { allow: 0, block: 0, watch: 0 },
};

describe('activityRepository.commit on DynamoDB Local', () => {
  it('stores a new record and moves its organization and brand day counters and its check-index entry', async () => {
    const threat = blockedThreat('org-new');

    const committed = await store.commit(undefined, threat, effectsOf(undefined, threat));

    expect(committed).toBe(true);
    expect(await store.find(threat)).toEqual(threat);
    expect(await moved('org-new')).toEqual({
      organization: { threats_URL: 1, total: 1 },
      brand: { threats_URL: 1, total: 1 },
      check: { allow: 0, block: 1, watch: 0 },
    });
  });

  it('moves the counters back when the record leaves a counted status', async () => {
    const threat = blockedThreat('org-withdrawn');
    await store.commit(undefined, threat, effectsOf(undefined, threat));
    const withdrawn = rejectedThreat('org-withdrawn');

    const committed = await store.commit(threat, withdrawn, effectsOf(threat, withdrawn));

    expect(committed).toBe(true);
    expect(await moved('org-withdrawn')).toEqual(NONE_MOVED);
  });

  it('writes nothing and reports false when the stored record is not the version the change was computed from', async () => {
    const threat = blockedThreat('org-stale');
    await store.commit(undefined, threat, effectsOf(undefined, threat));
    const stale = { ...threat, updatedAt: '2026-02-28T00:00:00.000Z' };
    const withdrawn = rejectedThreat('org-stale');

    const committed = await store.commit(stale, withdrawn, effectsOf(stale, withdrawn));

    expect(committed).toBe(false);
    expect(await store.find(threat)).toEqual(threat);
    expect((await moved('org-stale')).check).toEqual({ allow: 0, block: 1, watch: 0 });
  });

  it('refuses, writing nothing, a change whose decrement would take a day counter below zero', async () => {
    const threat = blockedThreat('org-disagree');
    // Another threat blocks the same content on another day, so only the day counters are missing.
    const other = {
      ...threatOf('org-disagree', { id: 't-2', createdAt: '2026-03-05T10:00:00Z' }),
      checkKey: threat.checkKey,
    };
    await store.commit(undefined, other, effectsOf(undefined, other));
    // A record stored without its counters: the records and the counters disagree.
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...key.activity('org-disagree', 'threat', 't-1'), entity: 'ACTIVITY', ...threat },
      }),
    );
    const withdrawn = rejectedThreat('org-disagree');

    const commit = store.commit(threat, withdrawn, effectsOf(threat, withdrawn));

    await expect(commit).rejects.toThrow('Applying this change would take a counter below zero');
    expect(await store.find(threat)).toEqual(threat);
    expect(await moved('org-disagree')).toEqual({ ...NONE_MOVED, check: { allow: 0, block: 1, watch: 0 } });
  });
});
