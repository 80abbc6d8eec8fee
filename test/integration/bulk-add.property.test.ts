import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { type AddResult, addAssets, assetIdentity } from '../../shared/domain/allowlist/assets.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('bulk-property');
const groups = assetGroupRepository(table.db, table.tableName);
const assets = assetRepository(table.db, table.tableName);
const SEED = Number(process.env.FC_SEED ?? 20261123);

const scanAll = async (): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({ TableName: table.tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** Contents of one pool slot, written in ways the service reads as the same asset. */
const spellings = (run: number, slot: number) => [
  `https://p${slot}-r${run}.example`,
  `HTTPS://P${slot}-R${run}.EXAMPLE/`,
  `p${slot}-r${run}.example`,
];
const item = fc.record({
  slot: fc.nat(59),
  spelling: fc.nat(2),
  group: fc.option(fc.nat(1), { nil: null }),
  invalid: fc.nat(11).map((n) => n === 0),
});
const requests = fc.array(fc.array(item, { minLength: 1, maxLength: 90 }), { minLength: 2, maxLength: 4 });

let run = 0;

describe('concurrent bulk adds on DynamoDB Local', () => {
  it('end with one live asset per identity, exact group counts and results that match the table', async () => {
    await fc.assert(
      fc.asyncProperty(requests, async (batches) => {
        const orgId = `bulk-${++run}`;
        const groupIds = [(await groups.create(orgId, 'A')).id, (await groups.create(orgId, 'B')).id];
        const sent = batches.map((batch) =>
          batch.map(({ slot, spelling, group, invalid }) => ({
            content: invalid ? `not a url ${slot}` : (spellings(run, slot)[spelling] as string),
            ...(invalid ? { type: 'URL' as const } : {}),
            groupId: group === null ? null : (groupIds[group] as number),
          })),
        );

        const answers = await Promise.all(sent.map((inputs) => addAssets(suffixes, assets, groups, orgId, inputs)));

        const items = await scanAll();
        const live = items.filter((i) => i.entity === 'ASSET' && i.orgId === orgId && i.deletedAt === undefined);
        const identities = items.filter(
          (i) => i.entity === 'ASSET_IDENTITY' && i.PK === key.storedAssetIdentity(orgId, '').PK,
        );
        const liveIds = new Set(live.map((a) => a.id));
        const byIdentity = new Map<string, number>();
        for (const asset of live) {
          const identity = `${asset.type}#${assetIdentity(suffixes, asset.content as string, asset.type as never)}`;
          byIdentity.set(identity, (byIdentity.get(identity) ?? 0) + 1);
        }
        expect([...byIdentity.values()].every((count) => count === 1)).toBe(true);
        expect(identities.map((i) => i.assetId).sort()).toEqual([...liveIds].sort());

        const results: AddResult[] = answers.flatMap((answer) => answer.results);
        const successes = results.filter((r): r is Extract<AddResult, { success: true }> => r.success);
        expect(successes.map((r) => r.id).sort()).toEqual([...liveIds].sort());
        for (const success of successes) {
          const stored = live.find((a) => a.id === success.id);
          expect([stored?.content, stored?.groupId ?? null]).toEqual([
            success.content,
            success.asset.group?.id ?? null,
          ]);
        }
        sent.forEach((inputs, r) => {
          const answer = answers[r];
          expect(answer?.results.map((result) => result.content)).toEqual(inputs.map((input) => input.content));
          expect(answer?.successCount).toBe(answer?.results.filter((result) => result.success).length);
          inputs.forEach((input, i) => {
            const result = answer?.results[i];
            if (result?.success !== false) return;
            const expected = input.type === 'URL' ? 'Invalid asset format' : 'Asset already exists in organization';
            expect(result.error).toBe(expected);
          });
        });
        const stored = await groups.list(orgId);
        for (const group of stored) {
          expect(group.assetCount).toBe(live.filter((a) => a.groupId === group.id).length);
        }
        for (const asset of live) {
          const checkKey = entryKeyOf(suffixes, asset.content as string, asset.type as never) as string;
          const entry = items.find((i) => i.PK === key.checkEntry(checkKey).PK);
          expect(entry?.allow).toBe(1);
        }
      }),
      { numRuns: 8, seed: SEED },
    );
  }, 600_000);
});
