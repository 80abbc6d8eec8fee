import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../domain/core/clock.ts';
import { type Backoff, backoffDelay } from '../domain/core/retry.ts';
import { BATCH_GET_ITEMS, BATCH_WRITE_ITEMS } from './limits.ts';

/** Before each new request for the keys left unprocessed: 40, 80, 160 … ms, at most 1 s. */
const UNPROCESSED_BACKOFF: Backoff = { firstMs: 40, capMs: 1000, jitter: 'none' };

/**
 * Reads every key (at most 100 per request, duplicates removed, since BatchGetItem rejects
 * them), retrying UnprocessedKeys with backoff. Returns the items found, in no order.
 */
export const batchGetAll = async (
  db: DynamoDBDocumentClient,
  table: string,
  keys: readonly { PK: string; SK: string }[],
  projection?: { expression: string; names: Record<string, string> },
  { consistent = false }: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> => {
  const unique = [...new Map(keys.map((k) => [`${k.PK}\u0000${k.SK}`, k])).values()];
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_ITEMS) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(start, start + BATCH_GET_ITEMS);
    for (let round = 0; pending && pending.length > 0; round++) {
      if (round > 0) await systemClock.sleep(backoffDelay(UNPROCESSED_BACKOFF, round));
      const result: BatchGetCommandOutput = await db.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(consistent ? { ConsistentRead: true } : {}),
              ...(projection
                ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
                : {}),
            },
          },
        }),
      );
      found.push(...(result.Responses?.[table] ?? []));
      pending = result.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return found;
};

/** Rounds of UnprocessedItems a batch write retries before it gives up: about 6 s of backoff. */
const MAX_WRITE_ROUNDS = 10;

/**
 * Puts every item (at most 25 per request), retrying UnprocessedItems with the same backoff as
 * reads; throws when the table keeps throttling past the last round. Items are written in no
 * order and not atomically: for idempotent puts only.
 */
export const batchPutAll = async (
  db: DynamoDBDocumentClient,
  table: string,
  items: readonly Record<string, unknown>[],
): Promise<void> => {
  for (let start = 0; start < items.length; start += BATCH_WRITE_ITEMS) {
    let pending: Record<string, unknown>[] | undefined = items
      .slice(start, start + BATCH_WRITE_ITEMS)
      .map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; pending && pending.length > 0; round++) {
      if (round >= MAX_WRITE_ROUNDS) throw new Error('Items could not be written: the table kept throttling');
      if (round > 0) await systemClock.sleep(backoffDelay(UNPROCESSED_BACKOFF, round));
      const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
    }
  }
};

/** The items of every page of a Query, page by page, following `LastEvaluatedKey` to the end (or until the caller stops). */
export async function* queryPages(
  db: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await db.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    yield page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Every page of a Scan, following `LastEvaluatedKey` to the end (or until the caller stops): for operators' one-offs. */
export async function* scanPages(
  db: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
): AsyncGenerator<ScanCommandOutput> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page: ScanCommandOutput = await db.send(new ScanCommand({ ...input, ExclusiveStartKey }));
    yield page;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** A Scan in `segments` parallel segments; `onPage` runs for each page, in turn within its segment. */
export const scanSegments = async (
  db: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey' | 'Segment' | 'TotalSegments'>,
  segments: number,
  onPage: (page: ScanCommandOutput, segment: number) => Promise<void>,
): Promise<void> => {
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      for await (const page of scanPages(db, { ...input, Segment: segment, TotalSegments: segments })) {
        await onPage(page, segment);
      }
    }),
  );
};
