import type { ActivityRecord } from './activity.ts';

/** The listings of the lifecycle, each a sparse index partition of one organization in one order. */
export type Listing =
  | 'reports'
  | 'reports-pending'
  | 'reports-rejected'
  | 'reports-pending-rejected'
  | 'threats-by-id'
  | 'threats-by-blockedAt'
  | 'threats-by-content'
  | 'threats-by-type'
  | 'takedowns-by-updatedAt'
  | 'takedowns-by-createdAt';

/** Filters read from each item after the key condition: they cost reads, bounded per request by the store. */
export type ListFilter = {
  assetTypes?: readonly string[];
  statuses?: readonly string[];
  /** Takedowns' `livenessStatus`; an item without one is UNKNOWN. */
  liveness?: readonly string[];
  /** Lower-case substring of the content. */
  contentContains?: string;
  /** Inclusive bounds on a timestamp attribute the key does not order by. */
  between?: { attribute: 'blockedAt' | 'updatedAt'; from: string; to: string };
};

export type ListQuery = {
  listing: Listing;
  orgId: string;
  /** Inclusive bounds on the listing's own order (a timestamp, or the type for `threats-by-type`). */
  range?: { from?: string; to?: string };
  descending: boolean;
  filter: ListFilter;
  limit: number;
  /** Where the previous page stopped, as the store wrote it (opaque text). */
  position?: string;
};

export type ListPage = { records: ActivityRecord[]; position?: string };

export interface ListStore {
  /**
   * Up to `limit` records in the listing's order from `position`. A page may hold fewer while
   * more exist (the read budget of one request was spent); only no `position` means the end.
   */
  page(query: ListQuery): Promise<ListPage>;
  /** Threats and takedowns about one asset identity, newest change first (at most `limit`). */
  byAsset(assetId: number, limit: number): Promise<ActivityRecord[]>;
  /**
   * The newest records of an asset that one organization holds, however many other organizations
   * hold newer ones (up to `limit`; the read is bounded, so a very popular asset may yield fewer).
   */
  byAssetOf(assetId: number, organization: string, limit: number): Promise<ActivityRecord[]>;
}
