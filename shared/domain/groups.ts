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
