import type { ActivityEffects, ActivityStore, RecordWrite } from './activity.ts';

/** The recent uses of a budget (epoch milliseconds) as read, and the version they were read at (0: never used). */
export type BudgetState = { uses: number[]; version: number };

/** A name at most one holder may take: the pending proposal of one content (and requested status) in one organization. */
export type ClaimName = { kind: 'pending'; orgId: string; checkKey: string; status: string };
/** A budget of uses: one organization's reviews. */
export type BudgetName = { kind: 'reviews'; orgId: string };

/**
 * What a lifecycle commit holds besides records and their effects: claims (names at most one
 * holder may take; a proposal awaiting review holds its content's), claims to let go, and the new
 * uses of a budget, written only while it is still at the version they were computed from; a use
 * counts for `windowMs`, so the store keeps the budget at least that long after its newest use.
 */
export type CommitGuards = {
  claims?: { name: ClaimName; holder: string }[];
  releases?: ClaimName[];
  budget?: { name: BudgetName; uses: number[]; version: number; windowMs: number };
};

/**
 * `stale`: a record is no longer the `previous` it was read as; `claimed`: a claim has another
 * holder; `budget-moved`: another commit used the budget since it was read.
 */
export type CommitOutcome = 'committed' | 'stale' | 'claimed' | 'budget-moved';

/** Where a part stands in a sequence of commits: the only one, or the first, a middle or the last of several. */
export type PartPosition = 'whole' | 'first' | 'middle' | 'last';

/** One commit: records, their effects and guards. */
export type LifecycleCommit = { writes: RecordWrite[]; effects: ActivityEffects; guards?: CommitGuards };

export interface LifecycleStore extends ActivityStore {
  /**
   * One transaction: every write (each only while its record is still `previous`), their
   * effects and the guards. Nothing changes unless the outcome is `committed`.
   */
  commitMany(writes: readonly RecordWrite[], effects: ActivityEffects, guards?: CommitGuards): Promise<CommitOutcome>;
  /**
   * Commits `count` units, each atomic, in order: in one commit when they fit one, otherwise in a
   * sequence of commits (a first, middle ones, a last) that the store cuts. `part` declares the
   * commit of units `[start, end)` at its position. It stops at the first commit not made;
   * `written` is how many units the commits before it made.
   */
  commitInParts(
    count: number,
    part: (start: number, end: number, position: PartPosition) => LifecycleCommit,
  ): Promise<{ outcome: CommitOutcome; written: number }>;
  /** A budget's recent uses, read consistently. */
  readBudget(name: BudgetName): Promise<BudgetState>;
  /** The holders of those claims that are held, by the names as given. */
  claimHolders(names: readonly ClaimName[]): Promise<Map<ClaimName, string>>;
  /** Reports still being written that were created before `before` (ISO 8601), oldest first, at most `limit`. */
  incompleteReports(before: string, limit: number): Promise<{ organization: string; id: string }[]>;
}
