import { ForbiddenError, NotFoundError } from '../../errors.ts';
import { entryKeyOf, type PublicSuffixes } from '../check/index.ts';
import type { CursorCodec } from '../core/cursor.ts';
import { detectAssetType, isValidFor } from './asset-detection.ts';
import type { AssetStatus, AssetType } from './asset-types.ts';
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

/** The asset `input` becomes under `id`, stored at `now` (an ISO time) unless the input says when it was created. */
export const newAsset = (orgId: string, input: NewAsset, id: number, now: string): Asset => ({
  id,
  orgId,
  content: input.content,
  type: input.type,
  status: input.status ?? 'ALLOWED',
  ...(input.name === undefined ? {} : { name: input.name }),
  description: input.description ?? null,
  groupId: input.groupId ?? null,
  createdAt: input.createdAt ?? now,
  updatedAt: now,
});

export type AssetChanges = { name?: string; description?: string | null; groupId?: number | null };

/** `ungrouped` is the `groupId=-1` of the API. */
export type AssetFilter = { type?: AssetType; groupId?: number | 'ungrouped'; query?: string };

/** `position`: where the next page starts, as text only the store that issued it reads. */
export type AssetPage = { assets: Asset[]; position?: string };

/** An asset ready to store: its type settled, its identity and check-index key worked out. */
export type PreparedAsset = NewAsset & { identity: string; checkKey: string | undefined };

/** Per prepared asset: stored, or refused because its identity is taken or its group vanished meanwhile. */
export type AddOutcome = { created: Asset } | { failed: 'exists' | 'group-gone' };

export interface AssetStore {
  findById(id: number): Promise<Asset | undefined>;
  /**
   * Stores every asset whose identity no live asset of the organization holds, each with its
   * group count and check-index entry: all of them or, if it is interrupted before its commit
   * point, none (more than one transaction's worth is staged first, then published). A retry of
   * the same assets takes up an interrupted attempt. An asset reported as failed leaves nothing
   * behind. Outcomes are in input order.
   */
  addMany(orgId: string, assets: readonly PreparedAsset[]): Promise<AddOutcome[]>;
  /**
   * Finishes the bulk adds left unfinished whose marker last moved before `before` (an ISO time):
   * publishes the committed ones, undoes the ones still staging. Stops starting new ones after
   * `deadline` (epoch ms).
   */
  resumeBulkAdds(before: string, deadline: number): Promise<{ published: number; undone: number }>;
  update(asset: Asset, changes: AssetChanges): Promise<Asset>;
  softDelete(asset: Asset): Promise<void>;
  /** Throws BadRequestError for a position it did not issue. */
  list(orgId: string, filter: AssetFilter, limit: number, position?: string): Promise<AssetPage>;
}

export type AssetView = Omit<Asset, 'orgId' | 'groupId'> & { group: { id: number; name: string } | null };

/** Same content and type (canonically) is one asset per organization. */
export const assetIdentity = (suffixes: PublicSuffixes, content: string, type: AssetType): string =>
  entryKeyOf(suffixes, content, type) ?? content.trim();

const ownedAsset = async (store: AssetStore, orgId: string, assetId: number): Promise<Asset> => {
  const asset = await store.findById(assetId);
  if (!asset) throw new NotFoundError(`Asset with ID ${assetId} not found`);
  if (asset.orgId !== orgId) throw new ForbiddenError('Asset does not belong to your organization');
  return asset;
};

const viewOf = (asset: Asset, names: ReadonlyMap<number, string>): AssetView => {
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
};

const groupNames = async (groups: GroupStore, orgId: string, ids: readonly (number | null | undefined)[]) => {
  const wanted = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  return wanted.length > 0 ? groups.namesOf(orgId, wanted) : new Map<number, string>();
};

export const INVALID_ASSET_FORMAT = 'Invalid asset format';
export const ASSET_EXISTS = 'Asset already exists in organization';

/** One submitted asset; `status` and `createdAt` are for the operator's fixtures, never the API. */
export type AssetInput = Omit<NewAsset, 'type'> & { type?: AssetType };

export type AddResult =
  | { content: string; success: true; id: number; asset: AssetView }
  | { content: string; success: false; error: string };

/** Settles each input's type and identity; inputs that cannot be added get their error instead. */
const prepare = (suffixes: PublicSuffixes, inputs: readonly AssetInput[]) => {
  const refused = new Map<number, string>();
  const prepared: PreparedAsset[] = [];
  const positions = new Map<number, number>();
  const seen = new Set<string>();
  inputs.forEach((input, index) => {
    const type = input.type ?? detectAssetType(suffixes, input.content);
    if (type === undefined || !isValidFor(suffixes, input.content, type)) {
      refused.set(index, INVALID_ASSET_FORMAT);
      return;
    }
    const identity = assetIdentity(suffixes, input.content, type);
    if (seen.has(`${type}#${identity}`)) {
      refused.set(index, ASSET_EXISTS);
      return;
    }
    seen.add(`${type}#${identity}`);
    const checkKey = (input.status ?? 'ALLOWED') === 'ALLOWED' ? entryKeyOf(suffixes, input.content, type) : undefined;
    positions.set(index, prepared.push({ ...input, type, identity, checkKey }) - 1);
  });
  return { refused, prepared, positions };
};

/**
 * Adds assets: an unknown group refuses the whole request before
 * anything is written; otherwise one result per input, in input order, each a new asset or
 * the reason it was not added (unrecognisable content, or an asset the organization, or an
 * earlier input, already has).
 */
export const addAssets = async (
  suffixes: PublicSuffixes,
  store: AssetStore,
  groups: GroupStore,
  orgId: string,
  inputs: AssetInput[],
) => {
  const names = await groupNames(
    groups,
    orgId,
    inputs.map((input) => input.groupId),
  );
  const missing = inputs.find((input) => typeof input.groupId === 'number' && !names.has(input.groupId));
  if (missing) throw new NotFoundError(`Group with ID ${missing.groupId} not found`);

  const { refused, prepared, positions } = prepare(suffixes, inputs);
  const outcomes = await store.addMany(orgId, prepared);
  const results = inputs.map(({ content, groupId }, index): AddResult => {
    const outcome = outcomes[positions.get(index) ?? -1];
    if (outcome === undefined) return { content, success: false, error: refused.get(index) ?? INVALID_ASSET_FORMAT };
    if ('created' in outcome) {
      return { content, success: true, id: outcome.created.id, asset: viewOf(outcome.created, names) };
    }
    const error = outcome.failed === 'exists' ? ASSET_EXISTS : `Group with ID ${groupId} not found`;
    return { content, success: false, error };
  });
  const successCount = results.filter((result) => result.success).length;
  return { results, successCount, errorCount: results.length - successCount };
};

/** The asset as the API answers it, plus its `groupId`, as the update answers it. */
export const updateAsset = async (
  store: AssetStore,
  groups: GroupStore,
  orgId: string,
  assetId: number,
  changes: AssetChanges,
): Promise<AssetView & { groupId: number | null }> => {
  const asset = await ownedAsset(store, orgId, assetId);
  // The changeable fields only, whatever else the request carried.
  const { name, description, groupId } = changes;
  const updated = await store.update(asset, { name, description, groupId });
  const names = await groupNames(groups, orgId, [updated.groupId]);
  return { ...viewOf(updated, names), groupId: updated.groupId };
};

/**
 * A bulk add whose marker has not moved for this long was abandoned: its request ran for at most
 * the function's 29 s, so nothing else writes it any more.
 */
export const BULK_ADD_ABANDONED_AFTER_MS = 60_000;

/** Publishes or undoes the bulk adds their requests left unfinished (a crash, a timeout, a store outage). */
export const finishBulkAdds = (store: AssetStore, now: number, deadline: number) =>
  store.resumeBulkAdds(new Date(now - BULK_ADD_ABANDONED_AFTER_MS).toISOString(), deadline);

export const removeAsset = async (store: AssetStore, orgId: string, assetId: number): Promise<number> => {
  const asset = await ownedAsset(store, orgId, assetId);
  await store.softDelete(asset);
  return asset.id;
};

/** A page request of `GET /organization/assets`: an empty `query` filters nothing. */
export type AssetListing = AssetFilter & { per_page: number; next_page?: string };

export const listAssets = async (
  { store, groups, cursors }: { store: AssetStore; groups: GroupStore; cursors: CursorCodec },
  orgId: string,
  { per_page: perPage, next_page: nextPage, ...query }: AssetListing,
) => {
  const filter: AssetFilter = { type: query.type, groupId: query.groupId, query: query.query || undefined };
  const binding = {
    orgId,
    filter: JSON.stringify([filter.type ?? null, filter.groupId ?? null, filter.query ?? null]),
  };
  const position = nextPage === undefined ? undefined : await cursors.open(binding, nextPage);
  const page = await store.list(orgId, filter, perPage, position);
  const names = await groupNames(
    groups,
    orgId,
    page.assets.map((asset) => asset.groupId),
  );
  return {
    assets: page.assets.map((asset) => viewOf(asset, names)),
    next_page: page.position ? await cursors.seal(binding, page.position) : null,
  };
};

/** Pages of an organization's URL assets read for its own domains. */
const MAX_OWN_DOMAIN_PAGES = 5;

/** The organization's own domains: the hosts of its allowlisted URL assets. */
export const ownDomains = async (
  suffixes: PublicSuffixes,
  assets: Pick<AssetStore, 'list'>,
  orgId: string,
): Promise<string[]> => {
  const domains: string[] = [];
  let position: string | undefined;
  for (let page = 0; page < MAX_OWN_DOMAIN_PAGES; page++) {
    const listed = await assets.list(orgId, { type: 'URL' }, 100, position);
    for (const asset of listed.assets) {
      const key = asset.status === 'ALLOWED' ? entryKeyOf(suffixes, asset.content, 'URL') : undefined;
      if (key !== undefined && !key.includes('/')) domains.push(key);
    }
    position = listed.position;
    if (position === undefined) break;
  }
  return domains;
};
