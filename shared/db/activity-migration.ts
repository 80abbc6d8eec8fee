import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { histogramItemOf, isInsightCounter } from '../domain/insights/insight-counters.ts';
import { activityItem, toRecord } from './activity-repository.ts';
import { scanPages, scanSegments } from './batch.ts';
import { changeWriter, counter, refuse, record as write } from './change-set.ts';
import {
  COUNTED_EVERYWHERE,
  countedInMonths,
  INSIGHTS_COUNTED,
  insightDeltas,
  insightGaugeDeltas,
  insightHistogramDeltas,
  insightMonthDeltas,
  isLegacyGaugeOnDay,
  MONTHS_COUNTED,
} from './insight-items.ts';
import { key } from './keys.ts';
import { gaugeCounter, monthCounter } from './month-keys.ts';

/** Scanned side by side: the table is read once, in parallel parts. */
const SEGMENTS = 4;

export type ActivityMigration = {
  scanned: number;
  rewritten: number;
  current: number;
  changedMeanwhile: number;
  /** Records counted into the insight day items by this run (stored before those items existed). */
  insightsCounted: number;
  /** Records whose open-work gauges this run counted into the gauge items (stored before those items existed). */
  gaugesCounted: number;
  /** Records whose histogram buckets this run counted into the histogram items (stored before those items existed). */
  histogramsCounted: number;
};

const canonical = (item: Record<string, unknown>): string =>
  JSON.stringify(Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))));

/**
 * Rewrites every activity item (report, threat, takedown) stored by an earlier version into the
 * form this one writes: a takedown's status in the published names (FILED is TODO, FAILED is
 * CANCELLED) and the listings' sort keys by the number each record answers as (a record keyed by
 * text sorted after the numbers before). Counters and the check index are not touched: neither
 * change moves them. Each rewrite is a Put conditioned on the `updatedAt` it read, so a record a
 * writer changed meanwhile (and so wrote in the current form) is left as that writer left it. An
 * item already current is not written, so a second run writes nothing and a run stopped anywhere
 * is finished by the next. `progress` hears of each page read.
 */
export const migrateActivityItems = async (
  db: DynamoDBDocumentClient,
  table: string,
  progress: (line: string) => void = () => undefined,
): Promise<ActivityMigration> => {
  const changes = changeWriter(db, table);
  const totals: ActivityMigration = {
    scanned: 0,
    rewritten: 0,
    current: 0,
    changedMeanwhile: 0,
    insightsCounted: 0,
    histogramsCounted: 0,
    gaugesCounted: 0,
  };
  await scanSegments(
    db,
    {
      TableName: table,
      FilterExpression: '#entity = :activity',
      ExpressionAttributeNames: { '#entity': 'entity' },
      ExpressionAttributeValues: { ':activity': 'ACTIVITY' },
      ConsistentRead: true,
    },
    SEGMENTS,
    async (page, segment) => {
      totals.scanned += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) {
        const record = toRecord(item);
        const next = { ...activityItem(record), ...COUNTED_EVERYWHERE };
        if (canonical(next) === canonical(item)) {
          totals.current++;
          continue;
        }
        const put = {
          TableName: table,
          Item: next,
          ConditionExpression: '#updatedAt = :seen',
          ExpressionAttributeNames: { '#updatedAt': 'updatedAt' },
          ExpressionAttributeValues: { ':seen': item.updatedAt },
        };
        // A version not yet counted in the insight day items is counted there with the write that marks it.
        const counts = item[INSIGHTS_COUNTED] === true ? [] : insightDeltas([{ previous: record, next: record }]);
        // Its month, gauge and histogram items move from how it was counted (its marker) to how this version counts:
        // not yet in the month items, its open work in them, its histogram buckets in them.
        const recount = [{ previous: { ...record, [MONTHS_COUNTED]: item[MONTHS_COUNTED] }, next: record }];
        const months = insightMonthDeltas(recount);
        const gauges = insightGaugeDeltas(recount);
        const histograms = insightHistogramDeltas(recount);
        try {
          if (counts.length + months.length + gauges.length + histograms.length === 0) {
            await db.send(new PutCommand(put));
          } else {
            const outcome = await changes.commit(() => [
              write({ Put: put }, refuse('changedMeanwhile')),
              ...counts.map(({ orgId, day, shard, deltas }) => counter(key.insightDay(orgId, day, shard), deltas)),
              ...months.map(({ orgId, month, shard, deltas }) =>
                monthCounter(key.insightMonth(orgId, month, shard), deltas),
              ),
              ...gauges.map(({ orgId, month, shard, deltas }) =>
                gaugeCounter(key.insightGauges(orgId, month, shard), deltas),
              ),
              ...histograms.map(({ orgId, item: histogram, month, shard, deltas }) =>
                counter(key.insightHistograms(orgId, histogram, month, shard), deltas),
              ),
            ]);
            if (!outcome.committed) {
              totals.changedMeanwhile++;
              continue;
            }
            if (counts.length > 0 || (!countedInMonths(item) && months.length > 0)) totals.insightsCounted++;
            if (gauges.length > 0) totals.gaugesCounted++;
            if (histograms.length > 0) totals.histogramsCounted++;
          }
          totals.rewritten++;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          totals.changedMeanwhile++;
        }
      }
      progress(
        `activity segment ${segment + 1}/${SEGMENTS}: ${page.Items?.length ?? 0} records read` +
          ` (all segments: ${totals.rewritten} rewritten, ${totals.current} already current)`,
      );
    },
  );
  return totals;
};

/** The partitions of the insight day, month, gauge and histogram items, which keep their counters (the `i.` names) by design. */
const INSIGHT_PARTITION = /#INSIGHTS(#MONTHS|#GAUGES|#H#[a-z]+\d+)?(#S\d+)?$/;
const MONTH_PARTITION = /#INSIGHTS#MONTHS(#S\d+)?$/;

export type LegacyCountersDropped = { dayItems: number; monthItems: number };

/**
 * Removes what earlier versions kept where nothing reads or writes it any more: the insight counters
 * of the metrics day items (of organizations and brands), which made every metrics read larger, and
 * the open-work gauges of the insight month items, which now live in the gauge items, and the
 * histogram buckets moved from them to the histogram items (each then zero). Each removal
 * is a plain REMOVE of attributes no writer sets, so a run stopped anywhere is finished by the next
 * and a second run removes nothing. Returns the items cleaned of each kind.
 */
export const dropLegacyInsightCounters = async (
  db: DynamoDBDocumentClient,
  table: string,
): Promise<LegacyCountersDropped> => {
  const cleaned: LegacyCountersDropped = { dayItems: 0, monthItems: 0 };
  for await (const page of scanPages(db, {
    TableName: table,
    FilterExpression: 'begins_with(PK, :metrics)',
    ExpressionAttributeValues: { ':metrics': 'METRICS#' },
  })) {
    for (const item of page.Items ?? []) {
      const month = MONTH_PARTITION.test(item.PK as string);
      if (!month && INSIGHT_PARTITION.test(item.PK as string)) continue;
      // A month item's histogram buckets were all moved to the histogram items: those left are zeros.
      const emptied = (name: string) => histogramItemOf(name) !== undefined && item[name] === 0;
      const names = Object.keys(item).filter(
        month ? (name) => isLegacyGaugeOnDay(name) || emptied(name) : isInsightCounter,
      );
      if (names.length === 0) continue;
      const zeros = names.flatMap((name, i) => (month && emptied(name) ? [`#r${i} = :zero`] : []));
      try {
        await db.send(
          new UpdateCommand({
            TableName: table,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `REMOVE ${names.map((_, i) => `#r${i}`).join(', ')}`,
            ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#r${i}`, name])),
            // A bucket a writer counted in meanwhile is no longer empty, and stays.
            ...(zeros.length > 0
              ? { ConditionExpression: zeros.join(' AND '), ExpressionAttributeValues: { ':zero': 0 } }
              : {}),
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        continue;
      }
      if (month) cleaned.monthItems++;
      else cleaned.dayItems++;
    }
  }
  return cleaned;
};
