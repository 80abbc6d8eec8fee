import type { ActivityEffects, ActivityStore, RecordWrite } from './activity.ts';

/**
 * What a lifecycle commit holds besides records and their effects: claims (names at most one
 * holder may take; a proposal awaiting review holds its content's), claims to let go, and one
 * use of a budget that must stay within `limit`.
 */
export type CommitGuards = {
  claims?: { name: string; holder: string }[];
  releases?: string[];
  budget?: { name: string; limit: number; expiresAt: number };
};

/** `stale`: a record is no longer the `previous` it was read as; `claimed`: a claim has another holder. */
export type CommitOutcome = 'committed' | 'stale' | 'claimed' | 'over-budget';

export interface LifecycleStore extends ActivityStore {
  /**
   * One transaction: every write (each only while its record is still `previous`), their
   * effects and the guards. Nothing changes unless the outcome is `committed`.
   */
  commitMany(writes: readonly RecordWrite[], effects: ActivityEffects, guards?: CommitGuards): Promise<CommitOutcome>;
  /** The holders of those claims that are held. */
  claimHolders(names: readonly string[]): Promise<Map<string, string>>;
  /** Reports still being written that were created before `before` (ISO 8601), oldest first, at most `limit`. */
  incompleteReports(before: string, limit: number): Promise<{ organization: string; id: string }[]>;
}
