import { BadRequestError } from '../../errors.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import { entryKeyOf, type PublicSuffixes } from '../check/index.ts';
import type { ActivityRecord, ActivityStore } from '../lifecycle/activity.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { assetIdOf } from '../lifecycle/reports.ts';
import { publicId } from '../lifecycle/views.ts';

/** Records read about one asset: the organization's newest changes of it. */
const RECORDS_PER_ASSET = 25;

export type ReportsSearchDeps = { lists: ListStore; store: Pick<ActivityStore, 'find'>; suffixes: PublicSuffixes };

type ReportView = { id: number | string; status: string; createdAt: string };

/** The organization's live reports that propose the asset (by the identity of its canonical content). */
const reportsOf = async (deps: ReportsSearchDeps, orgId: string, content: string): Promise<ActivityRecord[]> => {
  const checkKey = entryKeyOf(deps.suffixes, content, detectAssetType(deps.suffixes, content));
  if (checkKey === undefined) return [];
  const records = await deps.lists.byAssetOf(assetIdOf(checkKey), orgId, RECORDS_PER_ASSET);
  const ids = new Set(
    records.flatMap((record) =>
      record.organization === orgId && record.kind === 'threat' && !record.deleted && record.reportId !== undefined
        ? [record.reportId]
        : [],
    ),
  );
  const reports = await Promise.all([...ids].map((id) => deps.store.find({ organization: orgId, kind: 'report', id })));
  return reports.flatMap((report) =>
    report?.kind === 'report' && !report.deleted && !report.incomplete ? [report] : [],
  );
};

/**
 * `POST /reports/search`: for each asset, the organization's reports that already propose its
 * canonical content, so a client files no duplicate: the organization's records of each asset
 * (however many other organizations reported it since), a bounded Query per asset.
 * `reports` lists each report once with the asked contents it holds (the published shape).
 */
export const searchReports = async (deps: ReportsSearchDeps, orgId: string, assets: readonly string[] | undefined) => {
  if (assets === undefined) {
    throw new BadRequestError('assets is required', {
      issues: [{ message: 'assets is required', path: 'body.assets' }],
    });
  }
  const found = await Promise.all(assets.map((content) => reportsOf(deps, orgId, content)));
  const byReport = new Map<string, { report: ActivityRecord; assets: string[] }>();
  const view = (report: ActivityRecord): ReportView => ({
    id: publicId(report),
    status: (report.kind === 'report' ? report.status : undefined) ?? 'CLOSED',
    createdAt: report.createdAt,
  });
  const results = assets.map((asset, i) => {
    const reports = (found[i] ?? []).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    for (const report of reports) {
      const entry = byReport.get(report.id) ?? { report, assets: [] };
      if (!entry.assets.includes(asset)) entry.assets.push(asset);
      byReport.set(report.id, entry);
    }
    return { asset, reports: reports.map(view) };
  });
  const reports = [...byReport.values()].map(({ report, assets: contents }) => ({
    id: publicId(report),
    status: view(report).status,
    assets: contents,
  }));
  return { results, reports, totalCount: reports.length };
};
