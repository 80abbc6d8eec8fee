import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { ensureTable, localClient } from '../../infra/local/dynamo.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { createDocumentClient } from '../../shared/db/client.ts';
import { REQUEST_BUDGET_MS } from '../../shared/deadline.ts';
import { addAssets } from '../../shared/domain/allowlist/assets.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import { suffixes } from '../fixtures/suffixes.ts';

const SIZES = [100, 1_000];
const ROUNDS = 3;
/**
 * The deadline the route gives a bulk add of `n` assets (functions/assets/create.ts): one request
 * budget, and one more per 50 assets, within the 29 s function less the answer's half second.
 */
const deadlineOf = (n: number) => Math.min(REQUEST_BUDGET_MS * (1 + Math.floor(n / 50)), 28_500);
const FLOOR_RATIO_BUDGET = 2;
const BATCH_WRITE_LIMIT = 25;
const TRANSACTION_LIMIT = 100;
const FLOOR_CONCURRENCY = 4;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Every item of a table: after a bulk add into a fresh table, exactly the items it stored (and the group it went into). */
const everyItem = async (db: DynamoDBDocumentClient, table: string): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: table, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

const inBatches = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The raw floor: the items written with plain BatchWriteItem, no conditions, no transactions. */
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

/**
 * Bulk adds of 100 and 1,000 assets, grouped and ungrouped, each into a fresh table (more than one
 * transaction's worth is staged, committed and published); then the very items it left visible
 * (asset, identity, check-index entry and verdict-log entry per asset, the group)
 * are written again into fresh tables with plain BatchWriteItem (the floor) and with unconditional
 * transactions of 100. A first, uncounted round warms up both sides.
 */
export const benchBulkAdd = async (endpoint: string) => {
  // Measured is the table's speed, not the failure policy: on a loaded machine one transaction may outlast its 2.5 s.
  const policy = { budget: process.env.STORE_CALL_BUDGET_MS, attempt: process.env.STORE_ATTEMPT_TIMEOUT_MS };
  process.env.STORE_CALL_BUDGET_MS = '120000';
  process.env.STORE_ATTEMPT_TIMEOUT_MS = '60000';
  const db = createDocumentClient(endpoint);
  const tables: string[] = [];
  const freshTable = async () => {
    const table = `bench-bulk-${randomUUID().slice(0, 8)}`;
    await ensureTable(endpoint, table);
    tables.push(table);
    return table;
  };
  const rows: { name: string; value: string }[] = [];
  try {
    for (const grouped of [true, false]) {
      for (const n of SIZES) {
        const bulk: number[] = [];
        const floor: number[] = [];
        const txFloor: number[] = [];
        let itemCount = 0;
        for (let round = 0; round <= ROUNDS; round++) {
          const table = await freshTable();
          const assets = assetRepository(db, table);
          const groups = assetGroupRepository(db, table);
          const orgId = `bench-${randomUUID().slice(0, 8)}`;
          const group = grouped ? (await groups.create(orgId, 'Bulk')).id : null;
          const inputs = Array.from({ length: n }, (_, i) => ({
            content: `https://bulk-${i}.example`,
            groupId: group,
          }));
          const bulkMs = await time(async () => {
            const result = await addAssets(suffixes, assets, groups, orgId, inputs);
            if (result.successCount !== n) throw new Error(`bulk add stored ${result.successCount} of ${n}`);
          });
          // The staged copies are the add's own bookkeeping: the floor writes only what the add leaves visible.
          const items = (await everyItem(db, table)).filter((item) => item.entity !== 'STAGED_ASSET');
          const floorTable = await freshTable();
          const floorMs = await time(() => batchWriteFloor(db, floorTable, items));
          const txTable = await freshTable();
          const txMs = await time(() => transactionFloor(db, txTable, items));
          console.error(
            `  bulk add ${n} ${grouped ? 'grouped' : 'ungrouped'}, ${round === 0 ? 'warm-up' : `round ${round}/${ROUNDS}`}: ` +
              `${bulkMs.toFixed(0)} ms, floor ${floorMs.toFixed(0)} ms, transactions ${txMs.toFixed(0)} ms`,
          );
          if (round === 0) continue;
          bulk.push(bulkMs);
          floor.push(floorMs);
          txFloor.push(txMs);
          itemCount = items.length;
        }
        const [b, f, t] = [median(bulk), median(floor), median(txFloor)];
        const verdict = b / f <= FLOOR_RATIO_BUDGET && b <= deadlineOf(n) ? 'within budget' : 'OVER BUDGET';
        rows.push({
          name: `add ${n} assets ${grouped ? 'into one group' : 'ungrouped'} (median of ${ROUNDS}; ${itemCount} items)`,
          value:
            `${b.toFixed(0)} ms vs BatchWriteItem floor ${f.toFixed(0)} ms = ${(b / f).toFixed(2)}× ` +
            `(budget ≤ ${FLOOR_RATIO_BUDGET}×, and the request's deadline ${deadlineOf(n)} ms): ${verdict}; ` +
            `unconditional transactions of the same items ${t.toFixed(0)} ms = ${(b / t).toFixed(2)}×`,
        });
      }
    }
  } finally {
    for (const table of tables) await localClient(endpoint).send(new DeleteTableCommand({ TableName: table }));
    for (const [name, value] of [
      ['STORE_CALL_BUDGET_MS', policy.budget],
      ['STORE_ATTEMPT_TIMEOUT_MS', policy.attempt],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return rows;
};
