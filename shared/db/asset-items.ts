import { randomInt } from 'node:crypto';
import type { AssetStatus, AssetType } from '../domain/allowlist/asset-types.ts';
import type { Asset } from '../domain/allowlist/assets.ts';
import type { Write } from './change-set.ts';
import { ATTR, key, liveKeys } from './keys.ts';
import type { VerdictDelta, VerdictOrigin } from './verdict-change.ts';

export type AssetItem = Asset & {
  version: number;
  identitySK: string;
  checkKey?: string;
  deletedAt?: string;
  [ATTR.liveSort]?: string;
};

export const MAX_ATTEMPTS = 12;
/** Transactions of one bulk add in flight at once: they share group and check-index items, so more only conflict. */
export const CHUNK_CONCURRENCY = 4;

const originOf = (asset: Asset): VerdictOrigin => ({
  orgId: asset.orgId,
  assetId: asset.id,
  content: asset.content,
});
/** Time-ordered, collision-checked ids: no hot counter item, and safe integers until the 23rd century. */
export const newAssetId = (): number => Date.now() * 1000 + randomInt(1000);

/** Search is case-insensitive: the stored text and every query are lower-cased here, and only here. */
export const searchable = (text: string): string => text.toLowerCase();
export const searchText = (a: { content: string; name?: string; description?: string | null }) =>
  searchable([a.content, a.name ?? '', a.description ?? ''].join('\n'));

export const toAsset = (item: Record<string, unknown>): Asset => {
  const asset: Asset = {
    id: item.id as number,
    orgId: item.orgId as string,
    content: item.content as string,
    type: item.type as AssetType,
    status: item.status as AssetStatus,
    description: (item.description as string | null | undefined) ?? null,
    groupId: (item.groupId as number | null | undefined) ?? null,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
  if (typeof item.name === 'string') asset.name = item.name;
  return asset;
};

export type Chunk = { start: number; end: number };

/** A group's `assetCount` moves by `delta`; the group must still exist. */
export const groupCount = (orgId: string, id: number, delta: number): Write => ({
  Update: {
    Key: key.group(orgId, id),
    UpdateExpression: 'ADD assetCount :delta',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':delta': delta },
  },
});

/** A new asset's item, live in every index: version 1, its identity's sort key, and the check-index key it allows, if any. */
export const liveAssetItem = (asset: Asset, identitySK: string, checkKey: string | undefined) => ({
  ...asset,
  entity: 'ASSET',
  version: 1,
  identitySK,
  checkKey,
  search: searchText(asset),
  ...liveKeys(asset),
});

/** One allowlisting more (`1`) or fewer (`-1`) of an asset's content in the check index, made by the asset's organization. */
export const allowlisting = (asset: Asset, checkKey: string, allow: 1 | -1): VerdictDelta => ({
  checkKey,
  type: asset.type,
  allow,
  origins: [originOf(asset)],
});
