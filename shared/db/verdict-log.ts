import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandOutput,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AssetType } from '../domain/allowlist/asset-types.ts';
import { mapConcurrently } from '../domain/core/concurrency.ts';
import {
  bitsOf,
  type ChangeFeed,
  type IndexPage,
  LOG_TIMING,
  type LogLayouts,
  pack,
  positionAt,
  statusOf,
  timeOf,
  type VerdictChange,
  type VerdictLog,
  versionOf,
} from '../domain/verdict-feed/index.ts';
import { batchGetAll } from './batch.ts';
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
import type { NamedItems } from './transactions.ts';

/** The attributes of a check-index entry, by their expression names (BLOCK is a DynamoDB reserved word). */
const ENTRY_NAMES = {
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

/** Partitions of the log a replica's or publisher's read queries at once: a day's shards and an hour of the earlier layout. */
const READERS = VERDICT_LOG.shards + 2;
/**
 * Table queries one changelog call makes at most, whatever the number of changes or of days it
 * covers. The client feed pages the log itself rather than the published deltas: the log keeps the
 * whole retention window and each entry's state before it (only changes of a verdict are handed
 * out), which the deltas do not. A day of the log is 32 shard partitions (and, while entries of the
 * earlier layout are kept, up to 24 hourly ones), so the first round of reads of a call always
 * fits; a page whose next round would pass the bound ends early with `next` where it stopped, and
 * a client catching up over a quiet week takes a few calls of this size instead of one that
 * queries every partition of every day. Two rounds fit: a poll across midnight, or a busy day.
 */
export const CHANGELOG_QUERIES = 72;
/** Queries of one changelog call in flight at once: a call leaves the container's connections to other requests. */
export const CHANGELOG_READERS = 4;

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
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
const dayStart = (ms: number): number => Math.floor(ms / VERDICT_LOG.bucketMs) * VERDICT_LOG.bucketMs;
const hourStart = (ms: number): number => Math.floor(ms / LOG_TIMING.bucketMs) * LOG_TIMING.bucketMs;

/** A condition no item meets: `#key` is always set to the entry's own key. */
const FAILING = 'attribute_not_exists(#key) AND attribute_exists(#key)';

/** The names `verdictChange` gives its items, `count` deltas (distinct keys) long: retry when one of them fails. */
export const verdictItemNames = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `verdictEntry${i}`);

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
 * The one write path of the check index. Returns, for a transaction of the caller's, the named
 * items that change each entry and append its change to the verdict log: the entry's counters
 * after the change and its per-key sequence, conditioned on the sequence read here, so a
 * concurrent change of the same key fails the condition (`verdictItemNames`) and the caller
 * builds again. Every transaction that moves a check-index counter goes through here. A change
 * that would take a counter below zero gets an item named `verdictFloor<i>` whose condition fails,
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
): Promise<NamedItems> => {
  const changes = merged(deltas);
  if (changes.length === 0) return {};
  const found = await batchGetAll(
    db,
    table,
    changes.map((change) => key.checkEntry(change.checkKey)),
    ENTRY_PROJECTION,
    { consistent: true },
  );
  const byPk = new Map(found.map((item) => [item[ATTR.pk] as string, item]));
  const time = now();
  const names = verdictItemNames(changes.length);
  const items: NamedItems = {};
  changes.forEach((change, i) => {
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
    items[underflow ? `verdictFloor${i}` : (names[i] as string)] = {
      Update: {
        TableName: table,
        Key: entryKey,
        UpdateExpression:
          'SET #key = :key, #allow = :allow, #block = :block, #watch = :watch, #version = :seq, #lastChange = :change, #idxPK = :idxPK' +
          (type === undefined ? '' : ', #type = :type, #exportPK = :exportPK'),
        ConditionExpression: underflow
          ? FAILING
          : previous === 0
            ? 'attribute_not_exists(#version)'
            : '#version = :previous',
        ExpressionAttributeNames: {
          ...ENTRY_NAMES,
          '#idxPK': CHECK_INDEX.partitionKey,
          ...(type === undefined ? {} : { '#type': 'type', '#exportPK': EXPORT_INDEX.partitionKey }),
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
    items[`verdictLog${i}`] = {
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
  });
  return items;
};

/** Where the entry of the change `version` is stored: its shard is in the key digest the version carries. */
export const logEntryKey = (version: string) =>
  key.verdictLog(verdictLogShard(version.slice(14, 30)), positionAt(dayStart(timeOf(version))), version);

/** A verdict-log entry as stored: the change, the state before it, and whose change it was. */
export type LoggedChange = VerdictChange & { previousBits: number; origins: VerdictOrigin[] };

const toChange = (item: Record<string, unknown>): VerdictChange => ({
  key: item.key as string,
  type: item.type as AssetType | undefined,
  bits: item.bits as number,
  seq: item.seq as number,
  version: item[ATTR.sk] as string,
  changedAt: item.changedAt as string,
});

const toLogged = (item: Record<string, unknown>): LoggedChange => ({
  ...toChange(item),
  previousBits: (item.previousBits as number | undefined) ?? 0,
  origins: (item.origins as VerdictOrigin[] | undefined) ?? [],
});

const byVersion = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
  const x = a[ATTR.sk] as string;
  const y = b[ATTR.sk] as string;
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The partitions holding the entries stamped in `[fromMs, toMs]`, day by day: each day's shards
 * and, for entries written before the log was sharded, each hour's single partition (they expire
 * with the log's retention; until then they are read like a shard).
 */
const daysOf = (
  fromMs: number,
  toMs: number,
  { shards = true, legacy = true }: LogLayouts = {},
): { day: number; partitions: string[] }[] => {
  const days: { day: number; partitions: string[] }[] = [];
  for (let day = dayStart(fromMs); day <= toMs; day += VERDICT_LOG.bucketMs) {
    const partitions = shards
      ? Array.from({ length: VERDICT_LOG.shards }, (_, shard) => key.verdictLogPartition(shard, positionAt(day)))
      : [];
    const last = Math.min(toMs, day + VERDICT_LOG.bucketMs - 1);
    for (let hour = hourStart(Math.max(fromMs, day)); legacy && hour <= last; hour += LOG_TIMING.bucketMs) {
      partitions.push(key.legacyVerdictLogPartition(positionAt(hour)));
    }
    days.push({ day, partitions });
  }
  return days;
};

type Filter = { type?: AssetType; changedOnly?: boolean };

/** One page of one partition's entries in `[lo, hi]` (`hi` absent: to its end). */
const queryPartition = (
  db: DynamoDBDocumentClient,
  table: string,
  partition: string,
  range: { lo: string; hi?: string; filter?: Filter; consistent: boolean; limit?: number },
  startKey: Record<string, unknown> | undefined,
  signal?: AbortSignal,
): Promise<QueryCommandOutput> => {
  const { lo, hi, filter, consistent, limit } = range;
  const names: Record<string, string> = { '#pk': ATTR.pk, '#sk': ATTR.sk };
  const values: Record<string, unknown> = { ':pk': partition, ':lo': lo };
  const filters: string[] = [];
  if (hi !== undefined) values[':hi'] = hi;
  if (filter?.changedOnly) {
    names['#bits'] = 'bits';
    names['#previousBits'] = 'previousBits';
    filters.push('#bits <> #previousBits');
  }
  if (filter?.type !== undefined) {
    names['#type'] = 'type';
    values[':type'] = filter.type;
    filters.push('#type = :type');
  }
  return db.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: hi === undefined ? '#pk = :pk AND #sk >= :lo' : '#pk = :pk AND #sk BETWEEN :lo AND :hi',
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ConsistentRead: consistent,
      ...(limit === undefined ? {} : { Limit: limit }),
      ExclusiveStartKey: startKey,
    }),
    signal === undefined ? {} : { abortSignal: signal },
  );
};

/**
 * Every entry stamped at or after `from` (a position or version) until `now` and the settle
 * window ahead (entries may be stamped a little ahead of this clock), from every shard, strongly
 * consistent, in version order. Within a shard a key's changes commit in sequence order, so a
 * read that finds a key's change n + 1 finds its change n too.
 */
export const readLogFrom = async (
  db: DynamoDBDocumentClient,
  table: string,
  from: string,
  now: number,
  signal?: AbortSignal,
  layouts?: LogLayouts,
): Promise<LoggedChange[]> => {
  const partitions = daysOf(timeOf(from), now + LOG_TIMING.settleMs, layouts).flatMap((day) => day.partitions);
  const items = await mapConcurrently(partitions, READERS, async (partition) => {
    const found: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await queryPartition(db, table, partition, { lo: from, consistent: true }, startKey, signal);
      found.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  });
  return items.flat().sort(byVersion).map(toLogged);
};

type Cursor = { partition: string; startKey?: Record<string, unknown>; done: boolean; held: Record<string, unknown>[] };

/**
 * What a container knows to hold no change for the changelog: by day of the log and type asked
 * for (`<day>|<type>`), the position from which that day was read to its end and found so. Such a
 * day is older than the settle window, so no entry can land in it any more: a client catching up
 * over a quiet week reads each quiet day once per container instead of once per call, and a first
 * request repeated (from the oldest kept change, a moving position) gets past them.
 */
type QuietDays = Map<string, { day: number; from: string }>;
const quietKey = (day: number, type: AssetType | undefined) => `${day}|${type ?? ''}`;
const isQuiet = (quiet: QuietDays, day: number, type: AssetType | undefined, lo: string) => {
  const known = quiet.get(quietKey(day, type));
  return known !== undefined && known.from <= lo;
};
const rememberQuiet = (quiet: QuietDays, day: number, type: AssetType | undefined, from: string) => {
  for (const [key, known] of quiet) if (known.day < day - LOG_TIMING.retentionMs) quiet.delete(key);
  const known = quiet.get(quietKey(day, type));
  if (known === undefined || from < known.from) quiet.set(quietKey(day, type), { day, from });
};

/**
 * The changes after `after` (exclusive) up to `until` of one page, merged across the partitions
 * of each day: every partition not read to its end is read a page further, and the entries up to
 * the lowest place a partition's page stopped (`bound`) are complete across all of them, so they
 * are handed out in version order. `next`, when set, is exclusive: every entry up to it was
 * examined. Each partition's page is sized to about twice its share of `limit`, and a call sends
 * at most `CHANGELOG_QUERIES` queries, `CHANGELOG_READERS` at a time.
 */
const changesPage = async (
  db: DynamoDBDocumentClient,
  table: string,
  quiet: QuietDays,
  { after: since, until, limit, type }: { after: string; until: string; limit: number; type?: AssetType },
) => {
  const changes: VerdictChange[] = [];
  let after = since;
  let queries = 0;
  const pageLimit = Math.max(10, Math.ceil((2 * limit) / VERDICT_LOG.shards));
  for (const { day, partitions } of daysOf(timeOf(after), timeOf(until))) {
    const lo = day <= timeOf(after) ? after : positionAt(day);
    if (lo > until) break;
    const settled = day + VERDICT_LOG.bucketMs <= timeOf(until);
    let found = 0;
    const toRead = settled && isQuiet(quiet, day, type, lo) ? [] : partitions;
    const cursors: Cursor[] = toRead.map((partition) => ({ partition, done: false, held: [] }));
    for (;;) {
      const open = cursors.filter((cursor) => !cursor.done);
      if (open.length === 0) break;
      // The first round always fits (see CHANGELOG_QUERIES), so a page always moves on.
      if (queries > 0 && queries + open.length > CHANGELOG_QUERIES) return { changes, next: after };
      queries += open.length;
      await mapConcurrently(open, CHANGELOG_READERS, async (cursor) => {
        const page = await queryPartition(
          db,
          table,
          cursor.partition,
          { lo, hi: until, filter: { type, changedOnly: true }, consistent: false, limit: pageLimit },
          cursor.startKey,
        );
        cursor.held.push(...(page.Items ?? []));
        found += page.Items?.length ?? 0;
        cursor.startKey = page.LastEvaluatedKey;
        cursor.done = page.LastEvaluatedKey === undefined;
      });
      const stops = cursors.flatMap((cursor) => (cursor.done ? [] : [cursor.startKey?.[ATTR.sk] as string]));
      const bound = stops.length === 0 ? undefined : stops.reduce((low, stop) => (stop < low ? stop : low));
      const ready: Record<string, unknown>[] = [];
      for (const cursor of cursors) {
        const keep: Record<string, unknown>[] = [];
        for (const item of cursor.held) {
          if (bound === undefined || (item[ATTR.sk] as string) <= bound) ready.push(item);
          else keep.push(item);
        }
        cursor.held = keep;
      }
      for (const item of ready.sort(byVersion)) {
        const change = toChange(item);
        if (change.version <= since) continue;
        changes.push(change);
        if (changes.length === limit) return { changes, next: change.version };
      }
      if (bound !== undefined && bound > after) after = bound;
    }
    if (settled && found === 0) rememberQuiet(quiet, day, type, lo);
    // Exclusive: every entry before the next day (its last millisecond included) was examined.
    after = positionAt(day + VERDICT_LOG.bucketMs);
  }
  return { changes };
};

export type VerdictFeed = VerdictLog & ChangeFeed;

/**
 * The verdict log and the check index, read for replicas, snapshots and the client feed; `quiet`
 * is what this instance (a container's) learns of the log's quiet days.
 */
export const verdictFeed = (
  db: DynamoDBDocumentClient,
  table: string,
  now: () => number = Date.now,
  quiet: QuietDays = new Map(),
): VerdictFeed => ({
  async readFrom(from, signal, layouts) {
    return readLogFrom(db, table, from, now(), signal, layouts);
  },

  indexShards: CHECK_INDEX.shards,

  async readIndexPage(shard, cursor) {
    const page = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: CHECK_INDEX.name,
        KeyConditionExpression: '#idxPK = :idxPK',
        ProjectionExpression: '#key, #allow, #block, #watch, #version, #lastChange',
        ExpressionAttributeNames: { '#idxPK': CHECK_INDEX.partitionKey, ...ENTRY_NAMES },
        ExpressionAttributeValues: { ':idxPK': checkIndexPartition(shard) },
        ExclusiveStartKey: cursor === undefined ? undefined : (JSON.parse(cursor) as Record<string, unknown>),
      }),
    );
    const result: IndexPage = { keys: [], states: [] };
    for (const item of page.Items ?? []) {
      result.keys.push(item.key as string);
      result.states.push(pack(count(item.version), bitsOf(entryCounts(item))));
      const change = item.lastChange as string | undefined;
      if (change !== undefined && (result.newest === undefined || change > result.newest)) result.newest = change;
    }
    if (page.LastEvaluatedKey !== undefined) result.next = JSON.stringify(page.LastEvaluatedKey);
    return result;
  },

  changes(range) {
    return changesPage(db, table, quiet, range);
  },
});

/**
 * Puts every check-index entry written before an index existed into it: those with a type but no
 * export partition into the export index, those without a shard into the check index (what a
 * snapshot rebuild reads), each on the condition that it has not changed since it was read (a
 * change sets both itself). An operator's one-off: it scans the table.
 */
export const reindexExport = async (db: DynamoDBDocumentClient, table: string) => {
  let indexed = 0;
  let changedMeanwhile = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
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
        ExclusiveStartKey: startKey,
      }),
    );
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
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { indexed, changedMeanwhile };
};
