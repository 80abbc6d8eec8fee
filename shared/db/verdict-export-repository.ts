import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { ExportedEntry, VerdictExportStore } from '../domain/check/export.ts';
import { bitsOf, positionAt } from '../domain/check/verdicts.ts';
import { INVALID_CURSOR } from '../domain/cursor.ts';
import { nextDay } from '../domain/dates.ts';
import { BadRequestError } from '../errors.ts';
import { ATTR, EXPORT_INDEX, exportPartition } from './keys.ts';
import { decodePosition } from './position.ts';
import { entryCounts } from './verdict-log.ts';

/**
 * Query calls one page may make before it answers with what it has. Each reads at most what is
 * missing from the page (no filter), so a page reads at most `per_page` entries; the calls that
 * find an empty month cost one read unit each.
 */
const MAX_QUERIES = 32;
const MONTH = /^\d{4}-\d{2}$/;

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

/** Where a page stopped: the month partition it was in and, inside it, the index key of the last entry read. */
type Position = { month: string; after?: Record<string, string> };
const KEY_FIELDS = [ATTR.pk, ATTR.sk, EXPORT_INDEX.partitionKey, EXPORT_INDEX.sortKey];
const keyOf = (item: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(KEY_FIELDS.map((field) => [field, item[field] as string]));
const encode = (at: Position): string => JSON.stringify({ month: at.month, ...at.after });

/** The verdict export: a walk over the month partitions of one type and status, one bounded Query at a time. */
export const verdictExportRepository = (db: DynamoDBDocumentClient, TableName: string): VerdictExportStore => ({
  async page({ type, status, from, to, limit, maxBytes, sizeOf, position }) {
    const last = monthOf(to);
    let at: Position = { month: monthOf(from) };
    if (position !== undefined) {
      const { month, ...after } = decodePosition(position, ['month', ...KEY_FIELDS]);
      const inWindow = month !== undefined && MONTH.test(month) && month >= at.month && month <= last;
      const sameListing =
        Object.keys(after).length === 0 ||
        (Object.keys(after).length === KEY_FIELDS.length &&
          after[EXPORT_INDEX.partitionKey] === exportPartition(type, status, month as string));
      if (!inWindow || !sameListing) throw new BadRequestError(INVALID_CURSOR);
      at = Object.keys(after).length === 0 ? { month: month as string } : { month: month as string, after };
    }
    const entries: ExportedEntry[] = [];
    let bytes = 0;
    for (let call = 0; call < MAX_QUERIES; call++) {
      const result: QueryCommandOutput = await db.send(
        new QueryCommand({
          TableName,
          IndexName: EXPORT_INDEX.name,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :until',
          ExpressionAttributeNames: { '#pk': EXPORT_INDEX.partitionKey, '#sk': EXPORT_INDEX.sortKey },
          ExpressionAttributeValues: {
            ':pk': exportPartition(type, status, at.month),
            ':from': midnight(from),
            // A bare time sorts before every version stamped at it: the next day is excluded.
            ':until': midnight(nextDay(to)),
          },
          Limit: limit - entries.length,
          ...(at.after ? { ExclusiveStartKey: at.after } : {}),
        }),
      );
      for (const item of result.Items ?? []) {
        const entry = toEntry(item);
        const size = sizeOf(entry);
        if (entries.length > 0 && bytes + size > maxBytes) return { entries, position: encode(at) };
        entries.push(entry);
        bytes += size;
        at = { month: at.month, after: keyOf(item) };
      }
      if (result.LastEvaluatedKey !== undefined) {
        at = { month: at.month, after: keyOf(result.LastEvaluatedKey) };
      } else if (at.month === last) {
        return { entries };
      } else {
        at = { month: nextMonth(at.month) };
      }
      if (entries.length === limit) break;
    }
    return { entries, position: encode(at) };
  },
});
