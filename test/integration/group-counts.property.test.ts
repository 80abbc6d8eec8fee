import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { addAssets, removeAsset, updateAsset } from '../../shared/domain/assets.ts';
import { AppError } from '../../shared/errors.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('counts');
const groups = assetGroupRepository(table.db, table.tableName);
const assets = assetRepository(table.db, table.tableName);

type Op =
  | { kind: 'add'; n: number; group: number | null }
  | { kind: 'assign'; asset: number; group: number | null }
  | { kind: 'deleteAsset'; asset: number }
  | { kind: 'deleteGroup'; group: number }
  | { kind: 'createGroup' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 1, max: 4 }), group: fc.option(fc.nat(3)) }),
  fc.record({ kind: fc.constant('assign' as const), asset: fc.nat(40), group: fc.option(fc.nat(3)) }),
  fc.record({ kind: fc.constant('deleteAsset' as const), asset: fc.nat(40) }),
  fc.record({ kind: fc.constant('deleteGroup' as const), group: fc.nat(3) }),
  fc.record({ kind: fc.constant('createGroup' as const) }),
);

/** The truth: live assets per group, read from the asset records themselves (strongly consistent scan). */
const recount = async (orgId: string): Promise<Map<number, number>> => {
  const counts = new Map<number, number>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        ConsistentRead: true,
        FilterExpression: 'entity = :asset AND orgId = :org AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':asset': 'ASSET', ':org': orgId },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (typeof item.groupId === 'number') counts.set(item.groupId, (counts.get(item.groupId) ?? 0) + 1);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return counts;
};

/** Expected refusals (a group or asset deleted by an earlier or concurrent step) are part of the game. */
const tolerate = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
  }
};

let run = 0;

describe('group assetCount on DynamoDB Local', () => {
  it('equals a recount after random, partly concurrent add / assign / ungroup / delete sequences', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 10 }),
        async (steps) => {
          const orgId = `org-${++run}`;
          const groupIds: number[] = [];
          const assetIds: number[] = [];
          for (let i = 0; i < 3; i++) groupIds.push((await groups.create(orgId, `g${i}`)).id);
          let serial = 0;
          const pickGroup = (index: number | null) =>
            index === null ? null : (groupIds[index % groupIds.length] ?? null);
          for (const batch of steps) {
            // Each batch runs concurrently: transactions, not luck, must keep the counts exact.
            await Promise.all(
              batch.map(async (step) => {
                switch (step.kind) {
                  case 'add': {
                    const inputs = Array.from({ length: step.n }, () => ({
                      content: `https://a${serial++}.example`,
                      type: 'URL' as const,
                      groupId: pickGroup(step.group),
                    }));
                    await tolerate(
                      addAssets(assets, groups, orgId, inputs).then((r) =>
                        assetIds.push(...r.results.flatMap((a) => (a.success ? [a.id] : []))),
                      ),
                    );
                    return;
                  }
                  case 'assign': {
                    const id = assetIds[step.asset % Math.max(1, assetIds.length)];
                    if (id !== undefined)
                      await tolerate(updateAsset(assets, groups, orgId, id, { groupId: pickGroup(step.group) }));
                    return;
                  }
                  case 'deleteAsset': {
                    const id = assetIds[step.asset % Math.max(1, assetIds.length)];
                    if (id !== undefined) await tolerate(removeAsset(assets, orgId, id));
                    return;
                  }
                  case 'deleteGroup': {
                    const id = groupIds[step.group % groupIds.length];
                    if (id !== undefined) await tolerate(groups.remove(orgId, id));
                    return;
                  }
                  case 'createGroup':
                    groupIds.push((await groups.create(orgId, `extra-${serial++}`)).id);
                    return;
                }
              }),
            );
          }
          const truth = await recount(orgId);
          const stored = await groups.list(orgId);
          for (const group of stored) expect(group.assetCount).toBe(truth.get(group.id) ?? 0);
          const storedIds = new Set(stored.map((group) => group.id));
          for (const [groupId, count] of truth) if (count > 0) expect(storedIds.has(groupId)).toBe(true);
        },
      ),
      { numRuns: 20 },
    );
  }, 300_000);
});
