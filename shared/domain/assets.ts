import { ForbiddenError, NotFoundError } from '../errors.ts';
import type { AssetStatus, AssetType } from './asset-types.ts';
import { entryKeyOf } from './check/canonical.ts';
import { mapConcurrently } from './concurrency.ts';
import type { CursorCodec } from './cursor.ts';
import type { GroupStore } from './groups.ts';

export type Asset = {
  id: number;
  orgId: string;
  content: string;
  type: AssetType;
  status: AssetStatus;
  name?: string;
  description: string | null;
  groupId: number | null;
  createdAt: string;
  updatedAt: string;
};

export type NewAsset = {
  content: string;
  type: AssetType;
  status?: AssetStatus;
  name?: string;
  description?: string | null;
  groupId?: number | null;
  createdAt?: string;
};

export type AssetChanges = { name?: string; description?: string | null; groupId?: number | null };

/** `ungrouped` is the `groupId=-1` of the API. */
export type AssetFilter = { type?: AssetType; groupId?: number | 'ungrouped'; query?: string };

/** `position`: where the next page starts, as text only the store that issued it reads. */
export type AssetPage = { assets: Asset[]; position?: string };

export interface AssetStore {
  findById(id: number): Promise<Asset | undefined>;
  /** Adds the asset unless the organization already has a live one with the same identity, which it returns instead. */
  create(
    orgId: string,
    input: NewAsset & { identity: string; checkKey: string | undefined },
  ): Promise<{ asset: Asset; created: boolean }>;
  update(asset: Asset, changes: AssetChanges): Promise<Asset>;
  softDelete(asset: Asset): Promise<void>;
  /** Throws BadRequestError for a position it did not issue. */
  list(orgId: string, filter: AssetFilter, limit: number, position?: string): Promise<AssetPage>;
}

export type AssetView = Omit<Asset, 'orgId' | 'groupId'> & { group: { id: number; name: string } | null };

/** Same content and type (canonically) is one asset per organization. */
export const assetIdentity = (content: string, type: AssetType): string => entryKeyOf(content, type) ?? content.trim();

const ownedAsset = async (store: AssetStore, orgId: string, assetId: number): Promise<Asset> => {
  const asset = await store.findById(assetId);
  if (!asset) throw new NotFoundError(`Asset with ID ${assetId} not found`);
  if (asset.orgId !== orgId) throw new ForbiddenError('Asset does not belong to your organization');
  return asset;
};

const toViews = async (groups: GroupStore, orgId: string, assets: Asset[]): Promise<AssetView[]> => {
  const ids = [...new Set(assets.flatMap((asset) => (asset.groupId === null ? [] : [asset.groupId])))];
  const names = ids.length > 0 ? await groups.namesOf(orgId, ids) : new Map<number, string>();
  return assets.map((asset) => {
    const name = asset.groupId === null ? undefined : names.get(asset.groupId);
    return {
      id: asset.id,
      content: asset.content,
      type: asset.type,
      status: asset.status,
      ...(asset.name === undefined ? {} : { name: asset.name }),
      description: asset.description,
      group: asset.groupId !== null && name !== undefined ? { id: asset.groupId, name } : null,
      createdAt: asset.createdAt,
      updatedAt: asset.updatedAt,
    };
  });
};

const ADD_CONCURRENCY = 16;

export const addAssets = async (store: AssetStore, groups: GroupStore, orgId: string, inputs: NewAsset[]) => {
  const results = await mapConcurrently(inputs, ADD_CONCURRENCY, (input) => {
    const checkKey = (input.status ?? 'ALLOWED') === 'ALLOWED' ? entryKeyOf(input.content, input.type) : undefined;
    return store.create(orgId, { ...input, identity: assetIdentity(input.content, input.type), checkKey });
  });
  const created = results.filter((result) => result.created).length;
  return {
    assets: await toViews(
      groups,
      orgId,
      results.map((result) => result.asset),
    ),
    created,
  };
};

export const updateAsset = async (
  store: AssetStore,
  groups: GroupStore,
  orgId: string,
  assetId: number,
  changes: AssetChanges,
): Promise<AssetView> => {
  const asset = await ownedAsset(store, orgId, assetId);
  const updated = await store.update(asset, changes);
  const [view] = await toViews(groups, orgId, [updated]);
  return view as AssetView;
};

export const removeAsset = async (store: AssetStore, orgId: string, assetId: number): Promise<number> => {
  const asset = await ownedAsset(store, orgId, assetId);
  await store.softDelete(asset);
  return asset.id;
};

export const listAssets = async (
  store: AssetStore,
  groups: GroupStore,
  cursors: CursorCodec,
  orgId: string,
  filter: AssetFilter,
  perPage: number,
  nextPage?: string,
) => {
  const binding = {
    orgId,
    filter: JSON.stringify([filter.type ?? null, filter.groupId ?? null, filter.query ?? null]),
  };
  const position = nextPage === undefined ? undefined : await cursors.open(binding, nextPage);
  const page = await store.list(orgId, filter, perPage, position);
  return {
    assets: await toViews(groups, orgId, page.assets),
    next_page: page.position ? await cursors.seal(binding, page.position) : null,
  };
};
