import { isCountedThreat } from './activity.ts';
import { detectAssetType } from './asset-detection.ts';
import { entryKeyOf } from './check/canonical.ts';
import type { Checker } from './check/engine.ts';
import type { ListStore } from './lifecycle-lists.ts';
import { publicId } from './lifecycle-views.ts';
import { assetIdOf } from './reports.ts';

/** Records read to find the report behind a block: the newest changes of the asset. */
const RECORDS_PER_ASSET = 25;

/**
 * `POST /asset/details` (deprecated): the check's verdict, and why: `report` when the service's
 * own threat blocks the content (with the report behind the newest blocking threat of that
 * exact content), `eth-phishing-detect` when that list does.
 */
export const assetDetails = async (checker: Checker, lists: ListStore, content: string) => {
  const result = await checker.check(content);
  if (result.status !== 'BLOCKED') return { status: result.status };
  if (result.source === 'eth-phishing-detect') return { status: result.status, reason: 'eth-phishing-detect' };
  if (result.source !== 'service') return { status: result.status };
  const checkKey = entryKeyOf(content, detectAssetType(content));
  const records = checkKey === undefined ? [] : await lists.byAsset(assetIdOf(checkKey), RECORDS_PER_ASSET);
  const threat = records.find((record) => record.kind === 'threat' && isCountedThreat(record) && record.reportId);
  const reportId =
    threat?.kind === 'threat' && threat.reportId !== undefined
      ? publicId({ kind: 'report', organization: threat.organization, id: threat.reportId })
      : undefined;
  return { status: result.status, reason: 'report', ...(reportId === undefined ? {} : { reportId }) };
};
