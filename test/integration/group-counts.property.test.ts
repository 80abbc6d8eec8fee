import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { addAssets, removeAsset, updateAsset } from '../../shared/domain/allowlist/assets.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { suffixes } from '../fixtures/suffixes.ts';
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

/** Ids of assets and groups that some step deletes, so a step touching them may be refused. */
type Gone = { assets: ReadonlySet<number>; groups: ReadonlySet<number> };

/**
 * Runs a step that may be refused only because an earlier or concurrent step deleted the asset or
 * group it names (404 with that id); any other failure fails the property. Returns whether it succeeded.
 */
const unlessGone = async <T>(
  work: Promise<T>,
  gone: Gone,
  check: (result: T) => void | Promise<void>,
): Promise<boolean> => {
  try {
    await check(await work);
    return true;
  } catch (error) {
    const message = error instanceof NotFoundError ? error.message : '';
    const [, entity, id] = /^(Asset|Group) with ID (\d+) not found$/.exec(message) ?? [];
    const expected =
      entity === 'Asset' ? gone.assets.has(Number(id)) : entity === 'Group' && gone.groups.has(Number(id));
    if (!expected) throw error;
    return false;
  }
};

/** The content of every live asset of the organization, read from the asset records themselves. */
const liveContents = async (orgId: string): Promise<string[]> => {
  const contents: string[] = [];
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
    for (const item of page.Items ?? []) contents.push(item.content as string);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return contents.sort();
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
          /** Content by id of the assets an add reported; a refused add may have created some of its assets. */
          const added = new Map<number, string>();
          const maybeAdded = new Set<string>();
          const deleted = new Set<number>();
          const goneGroups = new Set<number>();
          const goneAssets = new Set<number>();
          for (let i = 0; i < 3; i++) groupIds.push((await groups.create(orgId, `g${i}`)).id);
          let serial = 0;
          const pickGroup = (index: number | null) =>
            index === null ? null : (groupIds[index % groupIds.length] ?? null);
          const pickAsset = (index: number) => assetIds[index % Math.max(1, assetIds.length)];
          for (const batch of steps) {
            // What this batch deletes is gone for all of its steps: they run concurrently. Each step picks its
            // target before its first await, so from the same lists as here.
            for (const step of batch) {
              if (step.kind === 'deleteGroup') goneGroups.add(groupIds[step.group % groupIds.length] as number);
              const asset = step.kind === 'deleteAsset' ? pickAsset(step.asset) : undefined;
              if (asset !== undefined) goneAssets.add(asset);
            }
            const gone = { assets: new Set(goneAssets), groups: new Set(goneGroups) };
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
                    const done = await unlessGone(
                      addAssets(suffixes, assets, groups, orgId, inputs),
                      gone,
                      (result) => {
                        expect(result.results.map((r) => r.content)).toEqual(inputs.map((input) => input.content));
                        result.results.forEach((r, i) => {
                          if (r.success) {
                            added.set(r.id, r.content);
                            assetIds.push(r.id);
                            return;
                          }
                          // Only a group deleted by a concurrent step refuses an item of a fresh content.
                          const group = inputs[i]?.groupId as number;
                          expect([r.error, gone.groups.has(group)]).toEqual([`Group with ID ${group} not found`, true]);
                        });
                      },
                    );
                    if (!done) for (const input of inputs) maybeAdded.add(input.content);
                    return;
                  }
                  case 'assign': {
                    const id = pickAsset(step.asset);
                    const groupId = pickGroup(step.group);
                    if (id === undefined) return;
                    await unlessGone(updateAsset(assets, groups, orgId, id, { groupId }), gone, (view) => {
                      const groupShown = groupId !== null && gone.groups.has(groupId) ? view.group?.id : groupId;
                      expect(view.group?.id ?? null).toBe(groupShown ?? null);
                    });
                    return;
                  }
                  case 'deleteAsset': {
                    const id = pickAsset(step.asset);
                    if (id === undefined) return;
                    await unlessGone(removeAsset(assets, orgId, id), gone, async (removed) => {
                      expect(removed).toBe(id);
                      expect(await assets.findById(id)).toBeUndefined();
                      deleted.add(id);
                    });
                    return;
                  }
                  case 'deleteGroup': {
                    const id = groupIds[step.group % groupIds.length] as number;
                    await unlessGone(groups.remove(orgId, id), gone, async () => {
                      expect((await groups.list(orgId)).map((group) => group.id)).not.toContain(id);
                    });
                    return;
                  }
                  case 'createGroup': {
                    const name = `extra-${serial++}`;
                    const group = await groups.create(orgId, name);
                    expect(group).toEqual({ id: expect.any(Number), name, assetCount: 0 });
                    expect(groupIds).not.toContain(group.id);
                    groupIds.push(group.id);
                    return;
                  }
                }
              }),
            );
          }
          const truth = await recount(orgId);
          const stored = await groups.list(orgId);
          const live = (await liveContents(orgId)).filter((content) => !maybeAdded.has(content));
          const kept = [...added].filter(([id]) => !deleted.has(id)).map(([, content]) => content);
          expect(live).toEqual(kept.sort());
          for (const group of stored) expect(group.assetCount).toBe(truth.get(group.id) ?? 0);
          const storedIds = new Set(stored.map((group) => group.id));
          for (const [groupId, count] of truth) if (count > 0) expect(storedIds.has(groupId)).toBe(true);
        },
      ),
      { numRuns: 20 },
    );
  }, 300_000);
});
