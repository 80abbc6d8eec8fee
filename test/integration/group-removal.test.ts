import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import type { Asset } from '../../shared/domain/allowlist/assets.ts';
import { crashingClient } from '../fixtures/crashing-client.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('removal');
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);

/** More than one ungrouping step (99 assets each). */
const IN_DELETED = 105;
const IN_KEPT = 4;
const UNGROUPED = 3;

const seedOrganization = async (orgId: string) => {
  const doomed = await groups.create(orgId, 'Doomed');
  const kept = await groups.create(orgId, 'Kept');
  const add = (i: number, groupId: number | null) =>
    assets.addMany(orgId, [
      {
        content: `https://a${i}.${orgId}.example`,
        type: 'URL',
        groupId,
        identity: `a${i}.${orgId}.example`,
        checkKey: undefined,
      },
    ]);
  for (let start = 0; start < IN_DELETED + IN_KEPT + UNGROUPED; start += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => start + j)
        .filter((i) => i < IN_DELETED + IN_KEPT + UNGROUPED)
        .map((i) => add(i, i < IN_DELETED ? doomed.id : i < IN_DELETED + IN_KEPT ? kept.id : null)),
    );
  }
  return { doomed: doomed.id, kept: kept.id };
};

const listAll = async (orgId: string, filter: { groupId?: number | 'ungrouped' }): Promise<Asset[]> => {
  const all: Asset[] = [];
  let position: string | undefined;
  do {
    const page = await assets.list(orgId, filter, 40, position);
    all.push(...page.assets);
    position = page.position;
  } while (position);
  return all;
};

/** Live assets of the organization that still carry `groupId`, read from the table itself. */
const carrying = async (orgId: string, groupId: number): Promise<number> => {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      ConsistentRead: true,
      FilterExpression: 'entity = :asset AND orgId = :org AND groupId = :group AND attribute_not_exists(deletedAt)',
      ExpressionAttributeValues: { ':asset': 'ASSET', ':org': orgId, ':group': groupId },
    }),
  );
  return Items.length;
};

describe('deleting a group interrupted at any step', () => {
  it('ends, after a retried delete or the service resuming on its own, with no asset in the group and exact counts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 14 }),
        fc.constantFrom('before' as const, 'after' as const),
        fc.constantFrom('retry' as const, 'resume' as const),
        async (step, when, recovery) => {
          const orgId = `removal-${run++}`;
          const { doomed, kept } = await seedOrganization(orgId);
          const crashing = assetGroupRepository(crashingClient(table.endpoint, step, when).client, table.tableName);

          await crashing.remove(orgId, doomed).catch(() => undefined);
          const meanwhile = await listAll(orgId, { groupId: 'ungrouped' });
          const groupsMeanwhile = await groups.list(orgId);
          if (recovery === 'retry') await groups.remove(orgId, doomed).catch(() => undefined);
          else await groups.resumeRemovals(Date.now() + 20_000);
          await groups.resumeRemovals(Date.now() + 20_000);

          const deletedMeanwhile = !groupsMeanwhile.some((group) => group.id === doomed);
          expect(meanwhile).toHaveLength(UNGROUPED + (deletedMeanwhile ? IN_DELETED : 0));
          expect(meanwhile.every((asset) => asset.groupId === null)).toBe(true);
          if (recovery === 'resume' && !deletedMeanwhile) return;
          expect(await carrying(orgId, doomed)).toBe(0);
          expect(await listAll(orgId, { groupId: 'ungrouped' })).toHaveLength(UNGROUPED + IN_DELETED);
          expect(await listAll(orgId, { groupId: doomed })).toEqual([]);
          expect(await groups.list(orgId)).toEqual([{ id: kept, name: 'Kept', assetCount: IN_KEPT }]);
          expect(await groups.resumeRemovals(Date.now() + 5_000)).toEqual({ finished: 0, unfinished: 0 });
        },
      ),
      { numRuns: 5, endOnFailure: true },
    );
  });

  it('counts an asset that leaves a deleted group before the removal reaches it exactly once', async () => {
    const orgId = 'removal-leaver';
    const { doomed, kept } = await seedOrganization(orgId);
    const [leaver, deleted] = (await listAll(orgId, { groupId: doomed })).slice(0, 2) as [Asset, Asset];
    const stalled = assetGroupRepository(crashingClient(table.endpoint, 3, 'before').client, table.tableName);
    await stalled.remove(orgId, doomed);

    await assets.update(leaver, { groupId: kept });
    await assets.softDelete(deleted);
    await groups.resumeRemovals(Date.now() + 20_000);

    expect(await carrying(orgId, doomed)).toBe(0);
    expect(await listAll(orgId, { groupId: 'ungrouped' })).toHaveLength(UNGROUPED + IN_DELETED - 2);
    expect(await groups.list(orgId)).toEqual([{ id: kept, name: 'Kept', assetCount: IN_KEPT + 1 }]);
    expect(await groups.resumeRemovals(Date.now() + 5_000)).toEqual({ finished: 0, unfinished: 0 });
  });
});
