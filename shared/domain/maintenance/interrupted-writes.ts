import { type AssetStore, finishBulkAdds } from '../allowlist/assets.ts';
import type { GroupStore } from '../allowlist/groups.ts';
import type { PublicSuffixes } from '../check/index.ts';
import { rollBackAbandonedReports } from '../lifecycle/reports.ts';
import type { LifecycleStore } from '../lifecycle/store.ts';

export type InterruptedWriteStores = {
  groups: GroupStore;
  reports: LifecycleStore;
  assets: AssetStore;
  suffixes: PublicSuffixes;
};

/**
 * Finishes or undoes the multi-step writes their requests left unfinished, by `deadline`. It rolls
 * back the reports abandoned between two of their transactions (a crash or a timeout; at most 50
 * a run), publishes the bulk adds interrupted after their commit point and undoes those abandoned
 * before it, then goes on ungrouping the assets of every deleted group whose removal the delete
 * request did not finish (a large group, or an interrupted request) until the deadline. Each step
 * is exact on its own, so a run that is cut short loses nothing; the next run continues.
 */
export const resumeInterruptedWrites = async (
  { groups, reports, assets, suffixes }: InterruptedWriteStores,
  now: () => number,
  deadline: number,
) => {
  const abandonedReports = await rollBackAbandonedReports(suffixes, reports, new Date(now()).toISOString());
  const bulkAdds = await finishBulkAdds(assets, now(), deadline);
  const removals = await groups.resumeRemovals(deadline);
  return { abandonedReports, bulkAdds, ...removals };
};
