import type { AssetType } from '../allowlist/asset-types.ts';
import type { ActivityRecord } from '../lifecycle/activity.ts';
import { isCountedThreat } from '../lifecycle/activity.ts';
import type { Maintained } from './stix.ts';

/**
 * An entry entering (`enter`) or leaving one of an organization's maintained collections. A
 * `generation` names one stay of the entry in the collection (the record that put it there and
 * when), so an entry that leaves and comes back gets a new indicator id; `created` is when that
 * stay began.
 */
export type CollectionMove = {
  orgId: string;
  collection: Maintained;
  checkKey: string;
  assetType: AssetType;
  generation: string;
  created: string;
  enter: boolean;
};

type Blocking = Extract<ActivityRecord, { kind: 'threat' }> & { checkKey: string; blockedAt: string };
const blocking = (record: ActivityRecord | undefined): Blocking | undefined =>
  record?.kind === 'threat' &&
  isCountedThreat(record) &&
  record.checkKey !== undefined &&
  record.blockedAt !== undefined
    ? (record as Blocking)
    : undefined;

const blockedMove = (record: Blocking, enter: boolean): CollectionMove => ({
  orgId: record.organization,
  collection: 'blocked',
  checkKey: record.checkKey,
  assetType: record.assetType,
  generation: `threat:${record.id}:${record.blockedAt}`,
  created: record.blockedAt,
  enter,
});

/** What replacing `previous` by `next` does to the organization's `blocked` collection (BLOCKED, APPROVED, AUTO_APPROVED threats). */
export const blockedMoves = (writes: readonly { previous?: ActivityRecord; next: ActivityRecord }[]) =>
  writes.flatMap(({ previous, next }): CollectionMove[] => {
    const before = blocking(previous);
    const after = blocking(next);
    const same =
      before !== undefined &&
      after !== undefined &&
      before.checkKey === after.checkKey &&
      before.blockedAt === after.blockedAt;
    if (same) return [];
    return [
      ...(before === undefined ? [] : [blockedMove(before, false)]),
      ...(after === undefined ? [] : [blockedMove(after, true)]),
    ];
  });

/** An allowlisted asset entering (added) or leaving (deleted) its organization's `allowed` collection; an asset is never re-added. */
export const allowedMove = (
  asset: { orgId: string; id: number; type: AssetType; createdAt: string },
  checkKey: string,
  enter: boolean,
): CollectionMove => ({
  orgId: asset.orgId,
  collection: 'allowed',
  checkKey,
  assetType: asset.type,
  generation: `asset:${asset.id}`,
  created: asset.createdAt,
  enter,
});
