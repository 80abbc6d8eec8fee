import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
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
  timeOf,
  type VerdictChange,
  type VerdictLog,
} from '../domain/verdict-feed/index.ts';
import { ATTR, CHECK_INDEX, checkIndexPartition, key, VERDICT_LOG, verdictLogShard } from './keys.ts';
import { count, dayStart, ENTRY_NAMES, entryCounts, type VerdictOrigin } from './verdict-change.ts';

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

const hourStart = (ms: number): number => Math.floor(ms / LOG_TIMING.bucketMs) * LOG_TIMING.bucketMs;

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
