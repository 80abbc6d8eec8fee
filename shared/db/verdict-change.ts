import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import { bitsOf, LOG_TIMING, positionAt, statusOf, timeOf, versionOf } from '../domain/verdict-feed/index.ts';
import { batchGetAll, scanPages } from './batch.ts';
import {
  ATTR,
  CHECK_INDEX,
  checkIndexPartition,
  EXPORT_INDEX,
  exportPartition,
  key,
  VERDICT_LOG,
  verdictLogShard,
} from './keys.ts';
import type { TransactItem } from './transactions.ts';

/** The attributes of a check-index entry, by their expression names (BLOCK is a DynamoDB reserved word). */
export const ENTRY_NAMES = {
  '#key': 'key',
  '#allow': 'allow',
  '#block': 'block',
  '#watch': 'watch',
  '#version': 'version',
  '#lastChange': 'lastChange',
};

/**
 * Who made a change: the organization whose allowlisting or threat moved the counter, with its
 * asset id and the content as it wrote them. Kept on the log entry, so a reader knows whose
 * change it was even once the record that caused it is gone (a deleted asset, a withdrawn threat).
 */
export type VerdictOrigin = { orgId: string; assetId?: number; content?: string };

/** A change of one check-index entry's counters, as its writer knows it. */
export type VerdictDelta = {
  checkKey: string;
  type?: AssetType;
  allow?: number;
  block?: number;
  watch?: number;
  origins?: readonly VerdictOrigin[];
};

const COUNTERS = ['allow', 'block', 'watch'] as const;
const ENTRY_PROJECTION = {
  expression: '#pk, #allow, #block, #watch, #version, #type, #lastChange',
  names: {
    '#pk': ATTR.pk,
    '#allow': 'allow',
    '#block': 'block',
    '#watch': 'watch',
    '#version': 'version',
    '#type': 'type',
    '#lastChange': 'lastChange',
  },
};

export const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
/** The counters of a check-index entry as stored (a missing one is zero; a missing entry is all zero). */
export const entryCounts = (item: Record<string, unknown> | undefined) => ({
  allow: count(item?.allow),
  block: count(item?.block),
  watch: count(item?.watch),
});
const keyHash = (checkKey: string): string => createHash('sha256').update(checkKey, 'utf8').digest('hex');
const indexShardOf = (hash: string): number => Number.parseInt(hash.slice(0, 4), 16) % CHECK_INDEX.shards;
/** The export partition of an entry of `type` left in state `bits` by the change `version`. */
const exportPartitionOf = (type: AssetType, bits: number, version: string, hash: string): string =>
  exportPartition(
    type,
    statusOf(bits),
    new Date(timeOf(version)).toISOString().slice(0, 7),
    Number.parseInt(hash.slice(0, 4), 16) % EXPORT_INDEX.shards,
  );
export const dayStart = (ms: number): number => Math.floor(ms / VERDICT_LOG.bucketMs) * VERDICT_LOG.bucketMs;

/** A condition no item meets: `#key` is always set to the entry's own key. */
const FAILING = 'attribute_not_exists(#key) AND attribute_exists(#key)';

/**
 * One item of a verdict change, by what its failed condition means: `entry`, a concurrent change of
 * the same key (build again); `floor`, a change that would take a counter below zero (its
 * condition always fails); `log`, the change's log entry (a new item: its condition never fails).
 */
export type VerdictItem = { kind: 'entry' | 'floor' | 'log'; item: TransactItem };

const merged = (deltas: readonly VerdictDelta[]): VerdictDelta[] => {
  const byKey = new Map<string, Required<Omit<VerdictDelta, 'type'>> & { type?: AssetType }>();
  for (const delta of deltas) {
    const entry = byKey.get(delta.checkKey) ?? { checkKey: delta.checkKey, allow: 0, block: 0, watch: 0, origins: [] };
    for (const counter of COUNTERS) entry[counter] += delta[counter] ?? 0;
    const known = new Set(entry.origins.map((origin) => origin.orgId));
    entry.origins = [...entry.origins, ...(delta.origins ?? []).filter((origin) => !known.has(origin.orgId))];
    if (delta.type !== undefined) entry.type = delta.type;
    byKey.set(delta.checkKey, entry);
  }
  return [...byKey.values()].filter((entry) => COUNTERS.some((counter) => entry[counter] !== 0));
};

/**
 * The one write path of the check index. Returns, for a transaction of the caller's, the items
 * that change each entry and append its change to the verdict log: the entry's counters after the
 * change and its per-key sequence, conditioned on the sequence read here, so a concurrent change
 * of the same key fails the condition (an `entry` item) and the caller builds again. Every
 * transaction that moves a check-index counter goes through here. A change that would take a
 * counter below zero gets a `floor` item whose condition fails,
 * so the transaction is refused unless another of its conditions explains why (its record was
 * superseded); otherwise the records and the index disagree.
 *
 * A change is never stamped before the entry's previous one, so a key's versions grow with its
 * sequence whatever the writers' clocks say. An entry with a type moves, with each change, to the
 * export partition of its type, status and the change's month (`EXPORT_INDEX`, sorted by `lastChange`).
 */
export const verdictChange = async (
  db: DynamoDBDocumentClient,
  table: string,
  deltas: readonly VerdictDelta[],
  now: () => number = Date.now,
): Promise<VerdictItem[]> => {
  const changes = merged(deltas);
  if (changes.length === 0) return [];
  const found = await batchGetAll(
    db,
    table,
    changes.map((change) => key.checkEntry(change.checkKey)),
    ENTRY_PROJECTION,
    { consistent: true },
  );
  const byPk = new Map(found.map((item) => [item[ATTR.pk] as string, item]));
  const time = now();
  const items: VerdictItem[] = [];
  for (const change of changes) {
    const entryKey = key.checkEntry(change.checkKey);
    const current = byPk.get(entryKey.PK);
    const before = entryCounts(current);
    const after = {
      allow: before.allow + (change.allow ?? 0),
      block: before.block + (change.block ?? 0),
      watch: before.watch + (change.watch ?? 0),
    };
    const underflow = after.allow < 0 || after.block < 0 || after.watch < 0;
    const previous = count(current?.version);
    const seq = previous + 1;
    const lastChange = current?.lastChange;
    const stamp = typeof lastChange === 'string' ? Math.max(time, timeOf(lastChange)) : time;
    const hash = keyHash(change.checkKey);
    const version = versionOf(stamp, hash, seq);
    const type = change.type ?? (current?.type as AssetType | undefined);
    // When the entry's BLOCKED verdict began (the change that made it so): what `/asset/search` dates its consumers by.
    const blocked = statusOf(bitsOf(after)) === 'BLOCKED';
    const blockedSince = blocked && statusOf(bitsOf(before)) !== 'BLOCKED' ? version : undefined;
    const entryItem: TransactItem = {
      Update: {
        TableName: table,
        Key: entryKey,
        UpdateExpression:
          'SET #key = :key, #allow = :allow, #block = :block, #watch = :watch, #version = :seq, #lastChange = :change, #idxPK = :idxPK' +
          (type === undefined ? '' : ', #type = :type, #exportPK = :exportPK') +
          (blockedSince === undefined ? '' : ', #blockedSince = :change') +
          (blocked ? '' : ' REMOVE #blockedSince'),
        ConditionExpression: underflow
          ? FAILING
          : previous === 0
            ? 'attribute_not_exists(#version)'
            : '#version = :previous',
        ExpressionAttributeNames: {
          ...ENTRY_NAMES,
          '#idxPK': CHECK_INDEX.partitionKey,
          ...(type === undefined ? {} : { '#type': 'type', '#exportPK': EXPORT_INDEX.partitionKey }),
          ...(blockedSince === undefined && blocked ? {} : { '#blockedSince': 'blockedSince' }),
        },
        ExpressionAttributeValues: {
          ':key': change.checkKey,
          ':allow': after.allow,
          ':block': after.block,
          ':watch': after.watch,
          ':seq': seq,
          ':change': version,
          ':idxPK': checkIndexPartition(indexShardOf(hash)),
          ...(previous === 0 || underflow ? {} : { ':previous': previous }),
          ...(type === undefined
            ? {}
            : { ':type': type, ':exportPK': exportPartitionOf(type, bitsOf(after), version, hash) }),
        },
      },
    };
    const logItem: TransactItem = {
      Put: {
        TableName: table,
        Item: {
          ...key.verdictLog(verdictLogShard(hash), positionAt(dayStart(stamp)), version),
          entity: 'VERDICT_CHANGE',
          key: change.checkKey,
          type,
          bits: bitsOf(after),
          previousBits: bitsOf(before),
          seq,
          changedAt: new Date(stamp).toISOString(),
          ...(change.origins !== undefined && change.origins.length > 0 ? { origins: change.origins } : {}),
          [ATTR.ttl]: Math.ceil((stamp + LOG_TIMING.retentionMs) / 1000),
        },
      },
    };
    items.push({ kind: underflow ? 'floor' : 'entry', item: entryItem }, { kind: 'log', item: logItem });
  }
  return items;
};

/**
 * Puts every check-index entry written before an index existed into it: those with a type but no
 * export partition into the export index, those without a shard into the check index (what a
 * snapshot rebuild reads), each on the condition that it has not changed since it was read (a
 * change sets both itself). An operator's one-off: it scans the table.
 */
export const reindexExport = async (db: DynamoDBDocumentClient, table: string) => {
  let indexed = 0;
  let changedMeanwhile = 0;
  for await (const page of scanPages(db, {
    TableName: table,
    FilterExpression:
      'begins_with(#pk, :prefix) AND ((attribute_exists(#type) AND attribute_not_exists(#exportPK)) OR attribute_not_exists(#idxPK))',
    ExpressionAttributeNames: {
      '#pk': ATTR.pk,
      '#type': 'type',
      '#exportPK': EXPORT_INDEX.partitionKey,
      '#idxPK': CHECK_INDEX.partitionKey,
    },
    ExpressionAttributeValues: { ':prefix': key.checkEntryPrefix },
    ConsistentRead: true,
  })) {
    for (const item of page.Items ?? []) {
      const bits = bitsOf(entryCounts(item));
      const typed = item.type !== undefined;
      try {
        await db.send(
          new UpdateCommand({
            TableName: table,
            Key: { [ATTR.pk]: item[ATTR.pk], [ATTR.sk]: item[ATTR.sk] },
            UpdateExpression: typed ? 'SET #idxPK = :idxPK, #exportPK = :exportPK' : 'SET #idxPK = :idxPK',
            ConditionExpression: '#version = :seq',
            ExpressionAttributeNames: {
              '#version': 'version',
              '#idxPK': CHECK_INDEX.partitionKey,
              ...(typed ? { '#exportPK': EXPORT_INDEX.partitionKey } : {}),
            },
            ExpressionAttributeValues: {
              ':seq': item.version,
              ':idxPK': checkIndexPartition(indexShardOf(keyHash(item.key as string))),
              ...(typed
                ? {
                    ':exportPK': exportPartitionOf(
                      item.type as AssetType,
                      bits,
                      item.lastChange as string,
                      keyHash(item.key as string),
                    ),
                  }
                : {}),
            },
          }),
        );
        indexed++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        changedMeanwhile++;
      }
    }
  }
  return { indexed, changedMeanwhile };
};
