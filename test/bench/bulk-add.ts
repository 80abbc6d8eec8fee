import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, localClient } from '../../infra/local/dynamo.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { key } from '../../shared/db/keys.ts';
import { addAssets } from '../../shared/domain/assets.ts';
import { mapConcurrently } from '../../shared/domain/concurrency.ts';

const SIZES = [100, 1_000];
const ROUNDS = 3;
/** A quarter of the function timeout (10 s): the bulk add's budget at 1,000 assets. */
const BUDGET_MS = 2_500;
const FLOOR_RATIO_BUDGET = 2;
const BATCH_WRITE_LIMIT = 25;
const TRANSACTION_LIMIT = 100;
const FLOOR_CONCURRENCY = 4;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The items a bulk add stores: asset, identity and check-index entry per asset; the group's count once. */
const sameItems = (orgId: string, n: number, group: number | null): Record<string, unknown>[] => {
  const now = new Date().toISOString();
  const items = Array.from({ length: n }, (_, i) => {
    const content = `https://floor-${randomUUID()}-${i}.example`;
    const id = Date.now() * 1000 + i;
    return [
      {
        ...key.asset(id),
        entity: 'ASSET',
        id,
        orgId,
        content,
        type: 'URL',
        status: 'ALLOWED',
        groupId: group,
        createdAt: now,
        updatedAt: now,
        version: 1,
        search: content,
      },
      { ...key.assetIdentity(orgId, 'URL', content), entity: 'ASSET_IDENTITY', assetId: id },
      { ...key.checkEntry(content), key: content, allow: 1 },
    ];
  }).flat();
  if (group !== null) items.push({ ...key.group(orgId, group), id: group, name: 'floor', assetCount: n } as never);
  return items;
};

const inBatches = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The raw floor: those items written with plain BatchWriteItem, no conditions, no transactions. */
const batchWriteFloor = async (db: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]) => {
  const batches = inBatches(items, BATCH_WRITE_LIMIT);
  await mapConcurrently(batches, FLOOR_CONCURRENCY, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  });
};

/** DynamoDB Local's own price of transactions: the same items in unconditional TransactWriteItems of 100. */
const transactionFloor = async (db: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]) =>
  mapConcurrently(inBatches(items, TRANSACTION_LIMIT), FLOOR_CONCURRENCY, (batch) =>
    db.send(new TransactWriteCommand({ TransactItems: batch.map((Item) => ({ Put: { TableName: table, Item } })) })),
  );

const time = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

/** Bulk adds of 100 and 1,000 assets, grouped and ungrouped, beside the BatchWriteItem floor of the same items. */
export const benchBulkAdd = async (endpoint: string) => {
  const table = `bench-bulk-${randomUUID().slice(0, 8)}`;
  await ensureTable(endpoint, table);
  const db = createDocumentClient(endpoint);
  const assets = assetRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const rows: { name: string; value: string }[] = [];
  try {
    for (const grouped of [true, false]) {
      for (const n of SIZES) {
        const bulk: number[] = [];
        const floor: number[] = [];
        const txFloor: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const orgId = `bench-${randomUUID().slice(0, 8)}`;
          const group = grouped ? (await groups.create(orgId, 'Bulk')).id : null;
          const inputs = Array.from({ length: n }, (_, i) => ({
            content: `https://bulk-${round}-${i}.example`,
            groupId: group,
          }));
          floor.push(await time(() => batchWriteFloor(db, table, sameItems(orgId, n, group))));
          txFloor.push(await time(() => transactionFloor(db, table, sameItems(`${orgId}-tx`, n, group))));
          bulk.push(
            await time(async () => {
              const result = await addAssets(assets, groups, orgId, inputs);
              if (result.successCount !== n) throw new Error(`bulk add stored ${result.successCount} of ${n}`);
            }),
          );
        }
        const [b, f, t] = [median(bulk), median(floor), median(txFloor)];
        const verdict = b / f <= FLOOR_RATIO_BUDGET && (n < 1_000 || b <= BUDGET_MS) ? 'within budget' : 'OVER BUDGET';
        rows.push({
          name: `add ${n} assets ${grouped ? 'into one group' : 'ungrouped'} (median of ${ROUNDS})`,
          value:
            `${b.toFixed(0)} ms vs BatchWriteItem floor ${f.toFixed(0)} ms = ${(b / f).toFixed(2)}× ` +
            `(budget ≤ ${FLOOR_RATIO_BUDGET}×${n >= 1_000 ? `, ≤ ${BUDGET_MS} ms` : ''}): ${verdict}; ` +
            `unconditional transactions of the same items ${t.toFixed(0)} ms = ${(b / t).toFixed(2)}×`,
        });
      }
    }
  } finally {
    await localClient(endpoint).send(new DeleteTableCommand({ TableName: table }));
  }
  return rows;
};
