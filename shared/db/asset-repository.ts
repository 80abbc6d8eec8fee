import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AddOutcome,
  type Asset,
  type AssetChanges,
  type AssetStore,
  newAsset,
  type PreparedAsset,
} from '../domain/allowlist/assets.ts';
import { allowedMove } from '../domain/taxii/index.ts';
import { NotFoundError } from '../errors.ts';
import { bulkAdds } from './asset-bulk-add.ts';
import {
  type AssetItem,
  allowlisting,
  type Chunk,
  groupCount,
  liveAssetItem,
  MAX_ATTEMPTS,
  newAssetId,
  searchText,
  toAsset,
} from './asset-items.ts';
import { assetLister } from './asset-list.ts';
import {
  type Change,
  changeWriter,
  claim,
  packUnits,
  record,
  refuse,
  retry,
  verdicts,
  type Write,
} from './change-set.ts';
import { ATTR, key, liveKeys } from './keys.ts';
import { collectionChanges } from './taxii-repository.ts';
import type { VerdictDelta } from './verdict-change.ts';

const changed = (current: Asset, changes: AssetChanges): Asset => ({
  ...current,
  ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
  updatedAt: new Date().toISOString(),
});

const groupId = (item: AssetItem): number | null => item.groupId ?? null;

/** Why a change of an asset is retried: what another writer moved since it was read. */
type Moved = 'asset' | 'identity' | 'oldGroup' | 'oldRemoval';
/** Why an input of a bulk add is retried: its id taken, its identity held, its group gone (by input position or group id). */
type AddRetry = `asset:${number}` | `identity:${number}` | `group:${number}`;

export const assetRepository = (db: DynamoDBDocumentClient, TableName: string): AssetStore => {
  const read = async (id: number): Promise<AssetItem | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.asset(id), ConsistentRead: true }));
    return Item as AssetItem | undefined;
  };
  const live = (item: AssetItem | undefined): item is AssetItem => item !== undefined && item.deletedAt === undefined;
  const readLive = async (id: number): Promise<AssetItem> => {
    const item = await read(id);
    if (!live(item)) throw new NotFoundError(`Asset with ID ${id} not found`);
    return item;
  };
  const groupGone = (id: number) => new NotFoundError(`Group with ID ${id} not found`);

  const changes = changeWriter(db, TableName);
  /** An asset leaves a deleted group whose ungrouping is unfinished: one fewer left to ungroup. */
  const removalCount = (orgId: string, id: number): Write => ({
    Update: {
      Key: key.groupRemoval(orgId, id),
      UpdateExpression: 'ADD remaining :minus',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  });
  /**
   * What leaving group `id` changes: its `assetCount`, or, once the group is deleted (its condition
   * failed before), the count of assets its removal has still to ungroup; nothing once both are gone.
   */
  const leaveGroup = <R>(orgId: string, id: number | null, retried: ReadonlySet<Moved>): Change<R, Moved>[] => {
    if (id === null) return [];
    if (!retried.has('oldGroup')) return [record(groupCount(orgId, id, -1), retry('oldGroup'))];
    if (!retried.has('oldRemoval')) return [record(removalCount(orgId, id), retry('oldRemoval'))];
    return [];
  };
  /** Writes `next` over the asset version `current` was read at, keeping it in the live indexes. */
  const replaceLive = (current: AssetItem, next: Asset): Write => {
    const keys = liveKeys(next);
    return {
      Update: {
        Key: key.asset(next.id),
        UpdateExpression:
          'SET description = :description, groupId = :groupId, updatedAt = :updatedAt, ' +
          '#search = :search, #lg = :lg, #ltg = :ltg, version = version + :one' +
          (next.name === undefined ? ' REMOVE #name' : ', #name = :name'),
        ConditionExpression: 'version = :version AND attribute_exists(#live)',
        ExpressionAttributeNames: {
          '#name': 'name',
          '#search': 'search',
          '#lg': ATTR.liveGroup,
          '#ltg': ATTR.liveTypeGroup,
          '#live': ATTR.liveSort,
        },
        ExpressionAttributeValues: {
          ...(next.name === undefined ? {} : { ':name': next.name }),
          ':description': next.description,
          ':groupId': next.groupId,
          ':updatedAt': next.updatedAt,
          ':search': searchText(next),
          ':lg': keys[ATTR.liveGroup],
          ':ltg': keys[ATTR.liveTypeGroup],
          ':one': 1,
          ':version': current.version,
        },
      },
    };
  };
  /** Marks the asset version `current` was read at deleted, taking it out of every live index. */
  const markDeleted = (current: AssetItem): Write => {
    const now = new Date().toISOString();
    return {
      Update: {
        Key: key.asset(current.id),
        UpdateExpression:
          'SET deletedAt = :now, updatedAt = :now, version = version + :one REMOVE #ls, #lo, #lt, #lg, #ltg',
        ConditionExpression: 'version = :version AND attribute_exists(#ls)',
        ExpressionAttributeNames: {
          '#ls': ATTR.liveSort,
          '#lo': ATTR.liveOrg,
          '#lt': ATTR.liveType,
          '#lg': ATTR.liveGroup,
          '#ltg': ATTR.liveTypeGroup,
        },
        ExpressionAttributeValues: { ':now': now, ':one': 1, ':version': current.version },
      },
    };
  };

  /** Everything inputs `[start, end)` write in one transaction; inputs whose identity or group was refused are left out. */
  const chunkChanges = (
    orgId: string,
    inputs: readonly PreparedAsset[],
    start: number,
    end: number,
    retried: ReadonlySet<AddRetry>,
    idOf: (index: number) => number,
  ) => {
    const written = new Map<number, Asset>();
    const set: Change<never, AddRetry>[] = [];
    const groupDeltas = new Map<number, number>();
    const deltas: VerdictDelta[] = [];
    for (let index = start; index < end; index++) {
      const input = inputs[index] as PreparedAsset;
      const group = input.groupId ?? null;
      if (retried.has(`identity:${index}`) || (group !== null && retried.has(`group:${group}`))) continue;
      const asset = newAsset(orgId, input, idOf(index), new Date().toISOString());
      const identity = key.assetIdentity(orgId, asset.type, input.identity);
      const checkKey = asset.status === 'ALLOWED' ? input.checkKey : undefined;
      set.push(
        claim(key.asset(asset.id), liveAssetItem(asset, identity.SK, checkKey), retry(`asset:${index}` as const)),
        claim(identity, { entity: 'ASSET_IDENTITY', assetId: asset.id }, retry(`identity:${index}` as const)),
      );
      if (group !== null) groupDeltas.set(group, (groupDeltas.get(group) ?? 0) + 1);
      if (checkKey !== undefined) {
        deltas.push(allowlisting(asset, checkKey, 1));
        set.push(...collectionChanges<never, AddRetry>([allowedMove(asset, checkKey, true)]));
      }
      written.set(index, asset);
    }
    for (const [group, delta] of groupDeltas) {
      set.push(record(groupCount(orgId, group, delta), retry(`group:${group}` as const)));
    }
    if (deltas.length > 0) set.push(verdicts(deltas));
    return { set, written };
  };

  /** One transaction per chunk; identities already taken, and groups gone meanwhile, drop out and the rest retries. */
  const addChunk = async (
    orgId: string,
    inputs: readonly PreparedAsset[],
    { start, end }: Chunk,
    requestBase: number,
  ) => {
    let refused: ReadonlySet<AddRetry> = new Set();
    let written = new Map<number, Asset>();
    let base = requestBase;
    const indexes = Array.from({ length: end - start }, (_, i) => start + i);
    await changes.commit(
      (retried: ReadonlySet<AddRetry>) => {
        // Ids are unique within the request; one taken by another request gets a fresh base on the retry.
        if (indexes.some((index) => retried.has(`asset:${index}`))) base = newAssetId();
        refused = retried;
        const built = chunkChanges(orgId, inputs, start, end, retried, (index) => base + index);
        written = built.written;
        return built.set;
      },
      { maxAttempts: MAX_ATTEMPTS + indexes.length },
    );
    return indexes.map((index): AddOutcome => {
      const asset = written.get(index);
      if (asset) return { created: asset };
      return { failed: refused.has(`identity:${index}`) ? 'exists' : 'group-gone' };
    });
  };

  const bulk = bulkAdds(db, TableName);
  const list = assetLister(db, TableName);

  return {
    async findById(id) {
      const item = await read(id);
      return live(item) ? toAsset(item) : undefined;
    },

    async addMany(orgId, inputs) {
      const requestBase = newAssetId();
      const chunks = packUnits(
        inputs.length,
        (start, end) => chunkChanges(orgId, inputs, start, end, new Set(), (index) => requestBase + index).set,
      );
      // One transaction is all or nothing by itself; more are staged, committed and published.
      if (chunks.length <= 1)
        return chunks.length === 0 ? [] : addChunk(orgId, inputs, chunks[0] as Chunk, requestBase);
      return bulk.add(orgId, inputs);
    },

    resumeBulkAdds: (before, deadline) => bulk.resume(before, deadline),

    async update(asset, assetChanges) {
      let next = asset;
      const outcome = await changes.commit(
        async (retried: ReadonlySet<Moved>) => {
          const current = await readLive(asset.id);
          next = changed(toAsset(current), assetChanges);
          const moves = next.groupId !== groupId(current);
          return [
            record<'groupGone', Moved>(replaceLive(current, next), retry('asset')),
            ...(moves && next.groupId !== null
              ? [record<'groupGone', Moved>(groupCount(asset.orgId, next.groupId, 1), refuse('groupGone'))]
              : []),
            ...(moves ? leaveGroup<'groupGone'>(asset.orgId, groupId(current), retried) : []),
          ];
        },
        { maxAttempts: MAX_ATTEMPTS },
      );
      if (!outcome.committed && next.groupId !== null) throw groupGone(next.groupId);
      return next;
    },

    async softDelete(asset) {
      const outcome = await changes.commit(
        async (retried: ReadonlySet<Moved>) => {
          const current = await readLive(asset.id);
          return [
            record<'floor', Moved>(markDeleted(current), retry('asset')),
            record<'floor', Moved>(
              {
                Delete: {
                  Key: key.storedAssetIdentity(current.orgId, current.identitySK),
                  ConditionExpression: 'assetId = :id',
                  ExpressionAttributeValues: { ':id': current.id },
                },
              },
              retry('identity'),
            ),
            ...leaveGroup<'floor'>(current.orgId, groupId(current), retried),
            ...(current.checkKey === undefined
              ? []
              : [
                  verdicts<'floor', Moved>([allowlisting(current, current.checkKey, -1)], { onFloor: refuse('floor') }),
                  ...collectionChanges<'floor', Moved>([allowedMove(current, current.checkKey, false)]),
                ]),
          ];
        },
        { maxAttempts: MAX_ATTEMPTS },
      );
      if (outcome.committed) return;
      // A concurrent delete that committed first also fails the check entry's floor (its count is already lowered).
      await readLive(asset.id);
      throw new Error('Deleting this asset would take its check-index entry below zero: records and index disagree');
    },

    list,
  };
};
