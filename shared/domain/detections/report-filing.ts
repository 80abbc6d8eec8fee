import { UnprocessableContentError } from '../../errors.ts';
import { createReport } from '../lifecycle/reports.ts';
import type { CandidateDeps, Detection } from './model.ts';

/** Records of an asset read for its rejections: the newest of the organization's own. */
const REJECTION_RECORDS = 25;
/**
 * Auto-reporting stops at content the organization's reviewers rejected at least twice (two of its
 * proposals of that content REJECTED): a third report would only come back for the same answer.
 */
const REJECTIONS_TO_STOP = 2;
export const rejectedTwice = async (
  lists: CandidateDeps['lists'],
  orgId: string,
  assetId: number,
): Promise<boolean> => {
  const records = await lists.byAssetOf(assetId, orgId, REJECTION_RECORDS);
  const rejected = records.filter((record) => record.kind === 'threat' && record.status === 'REJECTED');
  return rejected.length >= REJECTIONS_TO_STOP;
};

export const fileReport = async (deps: CandidateDeps, detection: Detection, now: number) => {
  if (!(await deps.store.claimReport(detection.orgId, detection.id))) return;
  const at = new Date(now).toISOString();
  try {
    await createReport(
      deps.reports,
      detection.orgId,
      {
        title: `Detection ${detection.id} (${detection.source}): ${detection.threatContent}`,
        description: detection.reason ?? '',
        assets: [{ content: detection.threatContent, status: 'BLOCKED' }],
      },
      { now: at },
    );
  } catch (error) {
    if (error instanceof UnprocessableContentError) return;
    await deps.store.releaseReport(detection.orgId, detection.id);
    throw error;
  }
  await deps.store.markReported(detection.orgId, detection.id, at);
};
