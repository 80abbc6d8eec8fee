import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../domain/core/concurrency.ts';
import { INVALID_CURSOR } from '../domain/core/cursor.ts';
import { nextDay } from '../domain/core/dates.ts';
import type { ExportedEntry, VerdictExportStore } from '../domain/verdict-feed/index.ts';
import { bitsOf, positionAt } from '../domain/verdict-feed/index.ts';
import { BadRequestError } from '../errors.ts';
import { ATTR, EXPORT_INDEX, exportPartition } from './keys.ts';
import { decodePosition } from './position.ts';
import { entryCounts } from './verdict-log.ts';

/**
 * Query calls one page may make before it answers with what it has. A month of one type and
 * status is `EXPORT_INDEX.shards` partitions and the unsharded one of earlier versions, read side
 * by side; each call reads its share of what is missing from the page and one more (no filter).
 */
const MAX_QUERIES = 96;
const MONTH = /^\d{4}-\d{2}$/;
const PARTITIONS_PER_MONTH = EXPORT_INDEX.shards + 1;

const monthOf = (day: string): string => day.slice(0, 7);
const nextMonth = (month: string): string => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 12
    ? `${String(year + 1).padStart(4, '0')}-01`
    : `${month.slice(0, 5)}${String(number + 1).padStart(2, '0')}`;
};
const midnight = (day: string): string => positionAt(Date.parse(`${day}T00:00:00Z`));

const toEntry = (item: Record<string, unknown>): ExportedEntry => ({
  key: item.key as string,
  type: item.type as ExportedEntry['type'],
  bits: bitsOf(entryCounts(item)),
  version: item[EXPORT_INDEX.sortKey] as string,
});

/**
 * Where a page stopped: the month it was in and, inside it, the last change read (exclusive; the
 * month's partitions are all read up to it). Pages of earlier versions named the index key of the
 * last entry read in the one partition a month had; its change is where they go on.
 */
type Position = { month: string; after?: string };
const LEGACY_FIELDS = [ATTR.pk, ATTR.sk, EXPORT_INDEX.partitionKey, EXPORT_INDEX.sortKey];
const encode = (at: Position): string =>
  JSON.stringify(at.after === undefined ? { month: at.month } : { month: at.month, [EXPORT_INDEX.sortKey]: at.after });

const partitionsOf = (type: string, status: string, month: string): string[] => [
  exportPartition(type, status, month),
  ...Array.from({ length: EXPORT_INDEX.shards }, (_, shard) => exportPartition(type, status, month, shard)),
];

const readPosition = (text: string, type: string, status: string, first: string, last: string): Position => {
  const { month, ...after } = decodePosition(text, ['month', ...LEGACY_FIELDS]);
  const inWindow = month !== undefined && MONTH.test(month) && month >= first && month <= last;
  const fields = Object.keys(after);
  const version = after[EXPORT_INDEX.sortKey];
  const partition = after[EXPORT_INDEX.partitionKey];
  const sameListing =
    fields.length === 0 ||
    (fields.length === 1 && version !== undefined) ||
    (fields.length === LEGACY_FIELDS.length && partition === exportPartition(type, status, month as string));
  if (!inWindow || !sameListing) throw new BadRequestError(INVALID_CURSOR);
  return version === undefined ? { month: month as string } : { month: month as string, after: version };
};

type Cursor = { partition: string; startKey?: Record<string, unknown>; done: boolean; held: Record<string, unknown>[] };

/**
 * The verdict export: a walk over the month partitions of one type and status, each month's
 * shards read side by side and merged in version order: the entries up to the lowest place a
 * shard's page stopped are complete across all of them.
 */
export const verdictExportRepository = (db: DynamoDBDocumentClient, TableName: string): VerdictExportStore => ({
  async page({ type, status, from, to, limit, maxBytes, sizeOf, position }) {
    const last = monthOf(to);
    let at: Position =
      position === undefined ? { month: monthOf(from) } : readPosition(position, type, status, monthOf(from), last);
    const entries: ExportedEntry[] = [];
    let bytes = 0;
    let calls = 0;
    const until = midnight(nextDay(to));
    for (;;) {
      const lo = at.after ?? midnight(from);
      const cursors: Cursor[] = partitionsOf(type, status, at.month).map((partition) => ({
        partition,
        done: false,
        held: [],
      }));
      for (;;) {
        const open = cursors.filter((cursor) => !cursor.done);
        if (open.length === 0) break;
        if (calls + open.length > MAX_QUERIES) return { entries, position: encode(at) };
        calls += open.length;
        const pageLimit = Math.ceil((limit - entries.length) / PARTITIONS_PER_MONTH) + 1;
        await mapConcurrently(open, PARTITIONS_PER_MONTH, async (cursor) => {
          const result: QueryCommandOutput = await db.send(
            new QueryCommand({
              TableName,
              IndexName: EXPORT_INDEX.name,
              KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :until',
              ExpressionAttributeNames: { '#pk': EXPORT_INDEX.partitionKey, '#sk': EXPORT_INDEX.sortKey },
              // A bare time sorts before every version stamped at it: the next day is excluded.
              ExpressionAttributeValues: { ':pk': cursor.partition, ':from': lo, ':until': until },
              Limit: pageLimit,
              ...(cursor.startKey ? { ExclusiveStartKey: cursor.startKey } : {}),
            }),
          );
          cursor.held.push(...(result.Items ?? []));
          cursor.startKey = result.LastEvaluatedKey;
          cursor.done = result.LastEvaluatedKey === undefined;
        });
        const stops = cursors.flatMap((cursor) =>
          cursor.done ? [] : [cursor.startKey?.[EXPORT_INDEX.sortKey] as string],
        );
        const bound = stops.length === 0 ? undefined : stops.reduce((low, stop) => (stop < low ? stop : low));
        const ready: ExportedEntry[] = [];
        for (const cursor of cursors) {
          const keep: Record<string, unknown>[] = [];
          for (const item of cursor.held) {
            if (bound === undefined || (item[EXPORT_INDEX.sortKey] as string) <= bound) ready.push(toEntry(item));
            else keep.push(item);
          }
          cursor.held = keep;
        }
        ready.sort((x, y) => (x.version < y.version ? -1 : x.version > y.version ? 1 : 0));
        for (const entry of ready) {
          if (at.after !== undefined && entry.version <= at.after) continue;
          const size = sizeOf(entry);
          if (entries.length > 0 && bytes + size > maxBytes) return { entries, position: encode(at) };
          entries.push(entry);
          bytes += size;
          at = { month: at.month, after: entry.version };
          if (entries.length === limit) return { entries, position: encode(at) };
        }
        if (bound !== undefined && (at.after === undefined || bound > at.after)) at = { month: at.month, after: bound };
      }
      if (at.month === last) return { entries };
      at = { month: nextMonth(at.month) };
    }
  },
});
