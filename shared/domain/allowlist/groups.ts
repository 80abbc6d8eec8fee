import { NotFoundError } from '../../errors.ts';
import { type Clock, systemClock } from '../core/clock.ts';

export type { Clock } from '../core/clock.ts';

export type Group = { id: number; name: string; assetCount: number };

export interface GroupStore {
  list(orgId: string): Promise<Group[]>;
  create(orgId: string, name: string): Promise<Group>;
  /** Renames in one transaction with the name uniqueness items; throws NotFoundError or ConflictError. */
  rename(orgId: string, id: number, name: string): Promise<Group>;
  /**
   * Deletes the group and its name and records its removal, in one transaction; then ungroups its
   * assets for a bounded time, leaving the rest to `resumeRemovals`. Returns how many assets the
   * group held. Finding the group already gone (a retry, or a concurrent delete that committed first),
   * it resumes any unfinished removal and throws NotFoundError.
   */
  remove(orgId: string, id: number): Promise<number>;
  /** Goes on with every unfinished removal until `deadline` (epoch ms); counts those finished and not. */
  resumeRemovals(deadline: number): Promise<{ finished: number; unfinished: number }>;
  namesOf(orgId: string, ids: readonly number[]): Promise<Map<number, string>>;
}

/** One step of a removal: finished, some assets ungrouped, or none visible yet though some remain. */
export type RemovalStep = 'done' | 'progress' | 'lagging';

/** What a group removal is made of, each step one atomic change of the stored groups and assets. */
export interface GroupRecords extends Omit<GroupStore, 'remove' | 'resumeRemovals'> {
  /**
   * Deletes the group and its name and, if it held assets, records their removal, all at once.
   * The number of assets it held; undefined when the group is already gone.
   */
  delete(orgId: string, id: number): Promise<number | undefined>;
  /** Ungroups the next assets of a deleted group, counting them off its removal; `done` once none remain. */
  ungroupNext(orgId: string, id: number): Promise<RemovalStep>;
  /** The removals not finished yet, page by page. */
  unfinishedRemovals(): AsyncIterable<{ orgId: string; groupId: number }[]>;
}

export type RemovalTiming = {
  /** How long a delete request goes on ungrouping before it answers and leaves the rest to the sweeper. */
  inlineBudgetMs: number;
  /** The pause before looking again when the listing of a group's assets lags behind its removal. */
  lagPauseMs: number;
  /** Told when a delete leaves its removal to the sweeper because a step failed. */
  onDeferred?: (orgId: string, id: number, error: unknown) => void;
};
const DEFAULT_TIMING: RemovalTiming = { inlineBudgetMs: 1500, lagPauseMs: 200 };

/**
 * The group store whose removals run as this process: the delete commits at once; the group's
 * assets are then ungrouped step by step, within the request for `inlineBudgetMs`, and by
 * `resumeRemovals` (the sweeper) for whatever the request left.
 */
export const groupStore = (
  records: GroupRecords,
  clock: Clock = systemClock,
  timing: RemovalTiming = DEFAULT_TIMING,
): GroupStore => {
  /** Works on a removal until it is finished (true) or `deadline` (epoch ms) passes (false). */
  const drain = async (orgId: string, id: number, deadline: number): Promise<boolean> => {
    while (clock.now() < deadline) {
      const step = await records.ungroupNext(orgId, id);
      if (step === 'done') return true;
      if (step === 'lagging') await clock.sleep(timing.lagPauseMs);
    }
    return false;
  };
  return {
    list: (orgId) => records.list(orgId),
    create: (orgId, name) => records.create(orgId, name),
    rename: (orgId, id, name) => records.rename(orgId, id, name),
    namesOf: (orgId, ids) => records.namesOf(orgId, ids),
    async remove(orgId, id) {
      const assetCount = await records.delete(orgId, id);
      try {
        await drain(orgId, id, clock.now() + timing.inlineBudgetMs);
      } catch (error) {
        timing.onDeferred?.(orgId, id, error);
      }
      // Another delete (concurrent, or an earlier try of this one) removed it; this one resumed what it left.
      if (assetCount === undefined) throw new NotFoundError(`Group with ID ${id} not found`);
      return assetCount;
    },
    async resumeRemovals(deadline) {
      let finished = 0;
      let unfinished = 0;
      for await (const removals of records.unfinishedRemovals()) {
        for (const { orgId, groupId } of removals) {
          if (clock.now() < deadline && (await drain(orgId, groupId, deadline))) finished++;
          else unfinished++;
        }
      }
      return { finished, unfinished };
    },
  };
};

export const createGroup = (store: GroupStore, orgId: string, name: string): Promise<Group> =>
  store.create(orgId, name);

export const renameGroup = (store: GroupStore, orgId: string, id: number, name: string): Promise<Group> =>
  store.rename(orgId, id, name);

export const deleteGroup = async (store: GroupStore, orgId: string, id: number) => {
  const unassignedAssetCount = await store.remove(orgId, id);
  return { success: true as const, id, unassignedAssetCount };
};

export const listGroups = async (store: GroupStore, orgId: string) => {
  const groups = await store.list(orgId);
  return groups.sort((a, b) => a.id - b.id);
};
