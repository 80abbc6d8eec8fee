import type { AssetType } from '../allowlist/asset-types.ts';
import type { CheckIndexStore, PublicSuffixes } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import type { ActivityRecord } from './activity.ts';
import { publicId } from './views.ts';

export interface ReportDirectory {
  /** The reports stored under this id, in any organization (more than one only for ids an operator chose). */
  reportsWithId(id: string): Promise<ActivityRecord[]>;
}

export type PublicReport = {
  id: number;
  status: string;
  createdAt: string;
  updatedAt: string;
  assets: { content: string; type: AssetType; verdict: 'ALLOWED' | 'BLOCKED' | 'UNKNOWN' }[];
};

/** Reports answer by number, whatever id they were recorded under. */
const REPORT_ID = /^[1-9][0-9]{0,15}$/;

/**
 * The public page of a report (`GET /v2/reports/{id}`), which anyone holding its address may
 * read: its id, status and dates, and each asset whose proposal was approved, with the service's
 * current verdict on it. A proposal still pending (or rejected) stays the organization's: report
 * ids are times, so guessable, and the page must not publish what nobody reviewed. Never who
 * reported it, how to reach them, its text or its reviews. Undefined for an unknown id, a report
 * still being written or removed, and an id two organizations' reports share.
 */
export const publicReport = async (
  deps: { reports: ReportDirectory; verdicts: CheckIndexStore; suffixes: PublicSuffixes },
  id: string,
): Promise<PublicReport | undefined> => {
  if (!REPORT_ID.test(id)) return undefined;
  const found = (await deps.reports.reportsWithId(id)).filter(
    (record) => record.kind === 'report' && !record.deleted && !record.incomplete,
  );
  const report = found.length === 1 ? found[0] : undefined;
  if (report?.kind !== 'report') return undefined;
  const approved = (report.proposals ?? []).filter((proposal) => proposal.reviewStatus === 'APPROVED');
  const keys = approved.map((proposal) => entryKeyOf(deps.suffixes, proposal.content, proposal.type));
  const known = keys.filter((key) => key !== undefined);
  const entries = known.length === 0 ? [] : await deps.verdicts.lookup(known);
  const entryOf = new Map(known.map((key, i) => [key, entries[i]]));
  return {
    id: publicId(report),
    status: report.status ?? 'CLOSED',
    createdAt: report.createdAt,
    updatedAt: report.updatedAt ?? report.createdAt,
    assets: approved.map((proposal, i) => {
      const key = keys[i];
      const entry = key === undefined ? undefined : entryOf.get(key);
      const verdict =
        entry === undefined ? 'UNKNOWN' : entry.allow > 0 ? 'ALLOWED' : entry.block > 0 ? 'BLOCKED' : 'UNKNOWN';
      return { content: proposal.content, type: proposal.type, verdict };
    }),
  };
};
