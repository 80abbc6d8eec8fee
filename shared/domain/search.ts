import { BadRequestError } from '../errors.ts';
import type { Caller } from './access.ts';
import type { ActivityStore } from './activity.ts';
import { type ActivityRecord, isCountedThreat } from './activity.ts';
import { detectAssetType } from './asset-detection.ts';
import { entryKeyOf } from './check/canonical.ts';
import type { ListStore } from './lifecycle-lists.ts';
import { publicId } from './lifecycle-views.ts';
import type { DirectoryStore } from './organizations.ts';
import { assetIdOf } from './reports.ts';

/** Records read about one asset: its newest changes, in every organization. */
const RECORDS_PER_ASSET = 25;

export type SearchDeps = {
  lists: ListStore;
  store: Pick<ActivityStore, 'find'>;
  directory: Pick<DirectoryStore, 'findMembership'>;
};

/** The organizations among `orgIds` whose records the caller may see. */
const visibleOrganizations = async (directory: SearchDeps['directory'], caller: Caller, orgIds: string[]) => {
  if (caller.kind === 'organization') return new Set(orgIds.filter((orgId) => orgId === caller.orgId));
  const memberships = await Promise.all(orgIds.map((orgId) => directory.findMembership(caller.userId, orgId)));
  return new Set(orgIds.filter((_, i) => memberships[i]?.status === 'ACTIVE'));
};

const assetView = (assetId: number, records: ActivityRecord[]) => {
  const threats = records.flatMap((record) => (record.kind === 'threat' ? [record] : []));
  const newest = threats[0];
  if (newest === undefined) return null;
  return {
    id: assetId,
    content: newest.content,
    type: newest.assetType,
    status: threats.some(isCountedThreat) ? 'BLOCKED' : 'UNKNOWN',
    watchStatus: threats.some((threat) => threat.watchlisted && !threat.deleted) ? 'ENABLED' : 'DISABLED',
    createdAt: threats.reduce(
      (first, threat) => (threat.createdAt < first ? threat.createdAt : first),
      newest.createdAt,
    ),
    updatedAt: newest.updatedAt,
  };
};

/**
 * `POST /asset/search`: what the service knows of one asset (by content or id), with the reports
 * and the newest takedown of the caller's organizations about it.
 */
export const searchAsset = async (deps: SearchDeps, caller: Caller, query: { content?: string; assetId?: number }) => {
  if (query.content === undefined && query.assetId === undefined) {
    throw new BadRequestError('content or assetId is required');
  }
  const checkKey = query.content === undefined ? undefined : entryKeyOf(query.content, detectAssetType(query.content));
  const assetId = query.assetId ?? (checkKey === undefined ? undefined : assetIdOf(checkKey));
  const records = assetId === undefined ? [] : await deps.lists.byAsset(assetId, RECORDS_PER_ASSET);
  const visible = await visibleOrganizations(deps.directory, caller, [...new Set(records.map((r) => r.organization))]);
  const own = records.filter((record) => visible.has(record.organization));
  const reportRefs = [
    ...new Map(
      own.flatMap((record) =>
        record.kind === 'threat' && record.reportId !== undefined
          ? [[`${record.organization}/${record.reportId}`, { organization: record.organization, id: record.reportId }]]
          : [],
      ),
    ).values(),
  ];
  const reports = await Promise.all(reportRefs.map((ref) => deps.store.find({ ...ref, kind: 'report' })));
  const takedown = own.find((record) => record.kind === 'takedown');
  return {
    asset: assetId === undefined ? null : assetView(assetId, records),
    reports: reports.flatMap((report) =>
      report?.kind === 'report' && !report.deleted && !report.incomplete
        ? [
            {
              id: publicId(report),
              title: report.title ?? '',
              status: report.status ?? 'CLOSED',
              createdAt: report.createdAt,
            },
          ]
        : [],
    ),
    takedown:
      takedown?.kind === 'takedown'
        ? {
            id: publicId(takedown),
            status: takedown.status,
            createdAt: takedown.createdAt,
            updatedAt: takedown.updatedAt,
          }
        : null,
    blockedBy: [],
  };
};
