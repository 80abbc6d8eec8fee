import type { Caller } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { Checker, PublicSuffixes } from '../check/index.ts';
import { canonicalize } from '../check/index.ts';
import { assetIdOf } from '../core/ids.ts';
import { type ActivityRecord, isCountedThreat } from '../lifecycle/activity.ts';
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

/** Blocking threats that name their report. */
const reportedBlocks = (records: readonly ActivityRecord[]) =>
  records.filter((record) => record.kind === 'threat' && isCountedThreat(record) && record.reportId !== undefined);

/**
 * The blocking threats behind the service's block of `content`: those of its own key, or, when the
 * block is inherited, of the nearest candidate key (page, host, parent domains) that has any. One
 * read per candidate key until one answers; a content has a handful.
 */
const blocksBehind = async (suffixes: PublicSuffixes, lists: ListStore, caller: Caller, content: string) => {
  const target = canonicalize(suffixes, content, detectAssetType(suffixes, content));
  if (target.kind !== 'keys') return [];
  for (const key of target.keys) {
    const found = reportedBlocks(await recordsOfAsset(lists, assetIdOf(key), caller));
    if (found.length > 0) return found;
  }
  return [];
};

/**
 * `POST /asset/details` (deprecated): the check's verdict, and why: `report` when the service's
 * own threat blocks the content (directly or through a parent domain), `eth-phishing-detect` when
 * that list does. A block of the service always stands on a report (fixtures and imports that
 * block without one create it), named with its `reportUrl`: the newest of the caller's own
 * organizations' when it has one, else the newest of any. The report's public page shows only
 * its status, dates and approved assets, so naming another organization's report discloses
 * nothing its page does not.
 */
export const assetDetails = async (deps: DetailsDeps, caller: Caller, content: string) => {
  const result = await deps.checker.check(content);
  if (result.status !== 'BLOCKED') return { status: result.status };
  if (result.source === 'eth-phishing-detect') return { status: result.status, reason: 'eth-phishing-detect' };
  if (result.source !== 'service') return { status: result.status };
  const blocking = await blocksBehind(deps.suffixes, deps.lists, caller, content);
  const visible = await visibleOrganizations(
    deps.directory,
    caller,
    blocking.map((record) => record.organization),
  );
  const threat = blocking.find((record) => visible.has(record.organization)) ?? blocking[0];
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
