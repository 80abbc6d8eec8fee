import { entryKeyOf, type PublicSuffixes } from '../check/index.ts';
import { assetIdOf, recordNumber } from '../core/ids.ts';
import { type ActivityChange, COUNTED_THREAT_STATUSES } from './activity-change.ts';

/** The id of the report that backs a threat recorded as blocking without one: derived from the threat's, so a reload finds it. */
export const backingReportId = (threatId: string): string => `report-for-${threatId}`;

/**
 * Every block of the service stands on a report, so that a verdict's `reportId` and `reportUrl`
 * always lead somewhere. A threat that a fixture or an import records as blocking without naming
 * its report gets one: a closed report, created with the threat, whose one proposal (the threat)
 * is approved, so its public page shows the content and its verdict. Both are plain changes,
 * applied and counted like any other, and both keep their ids on a reload, so loading the same
 * changes again adds nothing.
 */
export const withBackingReports = (suffixes: PublicSuffixes, changes: readonly ActivityChange[]): ActivityChange[] =>
  changes.flatMap((change): ActivityChange[] => {
    if (change.kind !== 'threat' || change.reportId !== undefined || change.deleted) return [change];
    if (!COUNTED_THREAT_STATUSES.has(change.status)) return [change];
    const checkKey = entryKeyOf(suffixes, change.content, change.assetType);
    const assetId = change.assetId ?? (checkKey === undefined ? undefined : assetIdOf(checkKey));
    const reportId = backingReportId(change.id);
    const proposal = {
      id: recordNumber('threat', change.organization, change.id),
      content: change.content,
      type: change.assetType,
      reviewStatus: 'APPROVED' as const,
    };
    const report: ActivityChange = {
      kind: 'report',
      organization: change.organization,
      id: reportId,
      brands: change.brands,
      createdAt: change.createdAt,
      updatedAt: change.createdAt,
      deleted: false,
      title: `Blocked: ${change.content}`.slice(0, 512),
      status: 'CLOSED',
      proposals: assetId === undefined ? [] : [{ ...proposal, assetId }],
    };
    return [report, { ...change, reportId }];
  });
