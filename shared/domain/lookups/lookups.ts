import type { Caller } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { Checker, PublicSuffixes } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import { assetIdOf } from '../core/ids.ts';
import { isCountedThreat } from '../lifecycle/activity.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { publicId } from '../lifecycle/views.ts';
import { recordsOfAsset, visibleOrganizations } from './search.ts';

export type DetailsDeps = {
  checker: Checker;
  lists: ListStore;
  directory: Pick<DirectoryStore, 'findMembership'>;
  /** What a report id is appended to for its `reportUrl`. */
  reportUrlBase: string;
  suffixes: PublicSuffixes;
};

/**
 * `POST /asset/details` (deprecated): the check's verdict, and why: `report` when the service's
 * own threat blocks the content, `eth-phishing-detect` when that list does. The report behind the
 * newest blocking threat of that exact content is named (with its `reportUrl`) only when it is
 * one of the caller's organizations': another organization's reports never show.
 */
export const assetDetails = async (deps: DetailsDeps, caller: Caller, content: string) => {
  const result = await deps.checker.check(content);
  if (result.status !== 'BLOCKED') return { status: result.status };
  if (result.source === 'eth-phishing-detect') return { status: result.status, reason: 'eth-phishing-detect' };
  if (result.source !== 'service') return { status: result.status };
  const checkKey = entryKeyOf(deps.suffixes, content, detectAssetType(deps.suffixes, content));
  const assetId = checkKey === undefined ? undefined : assetIdOf(checkKey);
  const records = assetId === undefined ? [] : await recordsOfAsset(deps.lists, assetId, caller);
  const blocking = records.filter((record) => record.kind === 'threat' && isCountedThreat(record) && record.reportId);
  const visible = await visibleOrganizations(
    deps.directory,
    caller,
    blocking.map((record) => record.organization),
  );
  const threat = blocking.find((record) => visible.has(record.organization));
  const reportId =
    threat?.kind === 'threat' && threat.reportId !== undefined
      ? publicId({ kind: 'report', organization: threat.organization, id: threat.reportId })
      : undefined;
  return {
    status: result.status,
    reason: 'report',
    ...(reportId === undefined ? {} : { reportId, reportUrl: `${deps.reportUrlBase}${reportId}` }),
  };
};
