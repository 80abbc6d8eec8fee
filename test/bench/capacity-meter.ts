/**
 * The capacity meter of `npm run capacity` (capacity.ts): a middleware on the functions' table
 * client that asks every command for its consumed capacity and attributes the units to the
 * partition key values the command names, in the table and each index, and the masking of ids
 * that groups partitions by key shape.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const UNIT_RULES = [
  'reads: the units DynamoDB Local reports, at least 1 (strongly consistent) or 0.5 (eventually consistent) per GetItem, per Query/Scan call and per key of a BatchGetItem; a BatchGetItem’s units are split evenly over its keys',
  'transactional reads (TransactGetItems): 2 RCU per item',
  'writes (Put/Update/Delete, BatchWriteItem items): 1 WCU per KB of the larger of the item before and after (at least the units Local reports for the table)',
  'transactional writes (TransactWriteItems): 2 WCU per KB per item on the table (ConditionCheck too), whether the transaction commits or is cancelled',
  'indexes: an item write costs 1 WCU per KB in every index partition its old or new image is in (both when the index key changes); item images are read before the write by a separate, unmetered client, the new image from the Item or the SET/REMOVE clauses of the update',
  'sizes: the JSON length of the item, rounded up to whole KB (reads: 4 KB)',
];

type Tag = { scenario: string };
export const tagged = new AsyncLocalStorage<Tag>();

export type Usage = { rcu: number; wcu: number; calls: number };
/** Units by scenario, then by `<table or index>\u0000<partition key value>`. */
export const usage = new Map<string, Map<string, Usage>>();
export const conflicts = new Map<string, number>();
/**
 * Transactions writing an item while another transaction writing it is still in flight: on
 * DynamoDB one of them is cancelled with TransactionConflict. DynamoDB Local serializes
 * transactions and never answers TransactionConflict, so this is what the run can show.
 */
const inFlight = new Map<string, number>();
export const overlaps = new Map<string, number>();
export const cancellations = new Map<string, number>();

export const TABLE = 'table';
const add = (part: string, partition: string, units: { rcu?: number; wcu?: number }, calls = 1) => {
  const tag = tagged.getStore();
  if (tag === undefined) return;
  const scenario = usage.get(tag.scenario) ?? new Map<string, Usage>();
  usage.set(tag.scenario, scenario);
  const id = `${part}\u0000${partition}`;
  const entry = scenario.get(id) ?? { rcu: 0, wcu: 0, calls: 0 };
  scenario.set(id, entry);
  entry.rcu += units.rcu ?? 0;
  entry.wcu += units.wcu ?? 0;
  entry.calls += calls;
};

export type Item = Record<string, unknown>;
export type Definition = {
  partitionKey: string;
  sortKey: string;
  indexes: { name: string; partitionKey: string; sortKey: string }[];
};

/** A value in the document client's form, or the low-level one (`{S}`, `{N}`) some callers send. */
const plain = (value: unknown): unknown => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [type, inner] = entries[0] as [string, unknown];
      if (type === 'S' || type === 'N' || type === 'B') return inner;
    }
  }
  return value;
};
const text = (value: unknown): string | undefined => {
  const v = plain(value);
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
};
const kb = (item: Item | undefined, unit = 1024) =>
  Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item ?? {})) / unit));

/** The new image of an item after an update: its SET `#a = :v` and REMOVE clauses applied to the old image. */
export const updatedImage = (old: Item | undefined, input: Item): Item => {
  const image: Item = { ...(old ?? {}), ...((input.Key as Item) ?? {}) };
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  const name = (ref: string) => names[ref] ?? ref;
  const expression = String(input.UpdateExpression ?? '');
  for (const section of expression.split(/\b(?=SET\b|REMOVE\b|ADD\b|DELETE\b)/i)) {
    const [keyword, ...rest] = section.trim().split(/\s+/);
    const body = rest.join(' ');
    if (/^SET$/i.test(keyword ?? '')) {
      for (const match of body.matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)\s*(?=,|$)/g)) {
        image[name(match[1] as string)] = plain(values[match[2] as string]);
      }
      for (const match of body.matchAll(/(#?[\w]+)\s*=/g)) {
        const attribute = name(match[1] as string);
        if (!(attribute in image)) image[attribute] = 0;
      }
    } else if (/^REMOVE$/i.test(keyword ?? '')) {
      for (const ref of body.split(',')) delete image[name(ref.trim())];
    }
  }
  return image;
};

type WriteItem = { kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck'; key: Item; input: Item };

/** What one item write costs, by partition, in the table and its indexes. */
const writeCost = (
  definition: Definition,
  write: WriteItem,
  old: Item | undefined,
  factor: number,
  reportedTable = 0,
): { part: string; partition: string; wcu: number }[] => {
  const image =
    write.kind === 'Put'
      ? (write.input.Item as Item)
      : write.kind === 'Update'
        ? updatedImage(old, write.input)
        : write.kind === 'Delete'
          ? undefined
          : old;
  const size = Math.max(kb(old), image ? kb(image) : 1);
  const partition = text(write.key[definition.partitionKey]) ?? '?';
  const costs = [{ part: TABLE, partition, wcu: Math.max(factor * size, reportedTable) }];
  if (write.kind === 'ConditionCheck') return costs;
  for (const index of definition.indexes) {
    const inIndex = (item: Item | undefined) =>
      item !== undefined && item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined
        ? text(item[index.partitionKey])
        : undefined;
    for (const value of new Set([inIndex(old), inIndex(image)])) {
      if (value !== undefined) costs.push({ part: index.name, partition: value, wcu: size });
    }
  }
  return costs;
};

type Capacity = {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
};

/** The partition a Query reads: the value its key condition gives the partition key of the table or index. */
export const queriedPartition = (definition: Definition, input: Item): { part: string; partition: string } => {
  const indexName = input.IndexName as string | undefined;
  const index = definition.indexes.find((candidate) => candidate.name === indexName);
  const attribute = index?.partitionKey ?? definition.partitionKey;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const match of String(input.KeyConditionExpression ?? '').matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    const ref = match[1] as string;
    if ((names[ref] ?? ref) === attribute)
      return { part: indexName ?? TABLE, partition: text(values[match[2] as string]) ?? '?' };
  }
  return { part: indexName ?? TABLE, partition: '?' };
};

const keyOf = (definition: Definition, item: Item): Item => ({
  [definition.partitionKey]: plain(item[definition.partitionKey]),
  [definition.sortKey]: plain(item[definition.sortKey]),
});

const describeKey = (definition: Definition, key: Item) =>
  `${text(key[definition.partitionKey]) ?? '?'} / ${text(key[definition.sortKey]) ?? '?'}`;

const writeItems = (command: string, input: Item, definition: Definition): WriteItem[] => {
  const keyed = (kind: WriteItem['kind'], operation: Item): WriteItem => ({
    kind,
    input: operation,
    key: keyOf(definition, (kind === 'Put' ? operation.Item : operation.Key) as Item),
  });
  switch (command) {
    case 'PutItemCommand':
      return [keyed('Put', input)];
    case 'UpdateItemCommand':
      return [keyed('Update', input)];
    case 'DeleteItemCommand':
      return [keyed('Delete', input)];
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Record<string, Item>[]).map((entry) => {
        const [kind, operation] = Object.entries(entry)[0] as [WriteItem['kind'], Item];
        return keyed(kind, operation);
      });
    case 'BatchWriteItemCommand':
      return Object.values((input.RequestItems ?? {}) as Record<string, { PutRequest?: Item; DeleteRequest?: Item }[]>)
        .flat()
        .map(({ PutRequest, DeleteRequest }) =>
          PutRequest ? keyed('Put', PutRequest) : keyed('Delete', DeleteRequest as Item),
        );
    default:
      return [];
  }
};

/** The items before a write, read by a client that is not metered. */
const imagesBefore = async (raw: DynamoDBDocumentClient, table: string, keys: Item[], definition: Definition) => {
  const found = new Map<string, Item>();
  for (let i = 0; i < keys.length; i += 100) {
    const chunk = [...new Map(keys.slice(i, i + 100).map((key) => [describeKey(definition, key), key])).values()];
    const page = await raw.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: chunk, ConsistentRead: true } } }),
    );
    for (const item of page.Responses?.[table] ?? []) found.set(describeKey(definition, keyOf(definition, item)), item);
  }
  return found;
};

const READ_COMMANDS = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);

/** Adds the meter to the functions' table client: every command asks for its capacity, and its units are recorded by partition. */
export const meter = (
  client: DynamoDBDocumentClient,
  raw: DynamoDBDocumentClient,
  table: string,
  definition: Definition,
) => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const input = args.input as Item;
      const tag = tagged.getStore();
      if (tag === undefined) return next(args);
      input.ReturnConsumedCapacity = 'INDEXES';
      const writes = writeItems(command, input, definition);
      const before =
        writes.length > 0
          ? await imagesBefore(
              raw,
              table,
              writes.map((w) => w.key),
              definition,
            )
          : undefined;
      const transactional =
        command === 'TransactWriteItemsCommand' ? writes.map((w) => describeKey(definition, w.key)) : [];
      for (const item of transactional) {
        const open = inFlight.get(item) ?? 0;
        if (open > 0) overlaps.set(item, (overlaps.get(item) ?? 0) + 1);
        inFlight.set(item, open + 1);
      }
      let output: { output?: Item } | undefined;
      let failure: unknown;
      try {
        output = (await next(args)) as { output?: Item };
      } catch (error) {
        failure = error;
      } finally {
        for (const item of transactional) inFlight.set(item, (inFlight.get(item) ?? 1) - 1);
      }
      const consumed = [output?.output?.ConsumedCapacity ?? []].flat() as Capacity[];
      const reported = consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      if (READ_COMMANDS.has(command)) recordRead(command, input, output?.output, reported, definition);
      else if (writes.length > 0) {
        const factor = command === 'TransactWriteItemsCommand' ? 2 : 1;
        const tableUnits = writes.length === 1 ? (consumed[0]?.Table?.CapacityUnits ?? 0) : 0;
        for (const write of writes) {
          const old = before?.get(describeKey(definition, write.key));
          for (const cost of writeCost(definition, write, old, factor, tableUnits)) {
            add(cost.part, cost.partition, { wcu: cost.wcu });
          }
        }
      }
      if (failure !== undefined) {
        const error = failure as { name?: string; CancellationReasons?: { Code?: string }[] };
        if (error.name === 'TransactionCanceledException') {
          (error.CancellationReasons ?? []).forEach((reason, i) => {
            const write = writes[i];
            if (!write || reason.Code === undefined || reason.Code === 'None') return;
            const counter = reason.Code === 'TransactionConflict' ? conflicts : cancellations;
            const label = `${reason.Code === 'TransactionConflict' ? '' : `${reason.Code}: `}${describeKey(definition, write.key)}`;
            counter.set(label, (counter.get(label) ?? 0) + 1);
          });
        }
        throw failure;
      }
      return output as never;
    },
    { step: 'initialize', name: 'capacityMeter', priority: 'low' },
  );
};

const recordRead = (
  command: string,
  input: Item,
  output: Item | undefined,
  reported: number,
  definition: Definition,
) => {
  const unit = (consistent: unknown) => (consistent === true ? 1 : 0.5);
  switch (command) {
    case 'GetItemCommand':
      add(TABLE, text((input.Key as Item)[definition.partitionKey]) ?? '?', {
        rcu: Math.max(reported, unit(input.ConsistentRead)),
      });
      return;
    case 'QueryCommand': {
      const { part, partition } = queriedPartition(definition, input);
      add(part, partition, { rcu: Math.max(reported, unit(input.ConsistentRead)) });
      return;
    }
    case 'ScanCommand':
      add(TABLE, '(Scan: every partition)', { rcu: Math.max(reported, unit(input.ConsistentRead)) });
      return;
    case 'BatchGetItemCommand': {
      const requests = Object.values(
        (input.RequestItems ?? {}) as Record<string, { Keys?: Item[]; ConsistentRead?: boolean }>,
      );
      const keys = requests.flatMap((request) =>
        (request.Keys ?? []).map((key) => ({ key, consistent: request.ConsistentRead })),
      );
      const share = keys.length > 0 ? reported / keys.length : 0;
      for (const { key, consistent } of keys) {
        add(TABLE, text(key[definition.partitionKey]) ?? '?', { rcu: Math.max(share, unit(consistent)) });
      }
      return;
    }
    case 'TransactGetItemsCommand':
      for (const entry of (input.TransactItems ?? []) as { Get?: Item }[]) {
        add(TABLE, text((entry.Get?.Key as Item | undefined)?.[definition.partitionKey]) ?? '?', { rcu: 2 });
      }
      return;
    default:
      void output;
  }
};

/** A partition key with its ids masked, so partitions of one shape group together whatever the ids. */
export const shapeOf = (partition: string, orgs: readonly string[]): string => {
  let shape = partition;
  for (const org of [...orgs].sort((a, b) => b.length - a.length)) shape = shape.split(org).join('<org>');
  return (
    shape
      .replace(/\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?/g, '<date>')
      // Digests (hex, base64url) and other long tokens mixing letters and digits; a word stays a word.
      .replace(/(?<![\w-])[\w-]{16,}(?![\w-])/g, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? '<id>' : run))
      .replace(/\d+/g, '<n>')
  );
};
