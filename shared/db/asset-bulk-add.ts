import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AddOutcome, type Asset, newAsset, type PreparedAsset } from '../domain/allowlist/assets.ts';
import { mapConcurrently } from '../domain/core/concurrency.ts';
import { allowedMove } from '../domain/taxii/index.ts';
import { logger } from '../logger.ts';
import { type BulkMarker, type BulkRetry, bulkAddMarkers, type Staged } from './asset-bulk-marker.ts';
import {
  allowlisting,
  CHUNK_CONCURRENCY,
  type Chunk,
  groupCount,
  liveAssetItem,
  MAX_ATTEMPTS,
  newAssetId,
} from './asset-items.ts';
import { batchGetAll, queryPages } from './batch.ts';
import { type Change, changeWriter, claim, packUnits, record, retry, verdicts } from './change-set.ts';
import { ACTIVITY_INDEX, ATTR, key, OPEN_BULK_ADDS } from './keys.ts';
import { TRANSACTION_ITEMS } from './limits.ts';
import { collectionChanges } from './taxii-repository.ts';
import type { VerdictDelta } from './verdict-change.ts';

/** Staged items outlive their batch by this long before TTL removes them; nothing reads a finished batch's. */
const STAGED_TTL_S = 7 * 86_400;
/** A bulk add of one body in one organization: what a retry of the same request finds its marker by. */
const requestDigest = (orgId: string, inputs: readonly PreparedAsset[]): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        orgId,
        inputs.map((input) => [
          input.type,
          input.identity,
          input.content,
          input.name ?? null,
          input.description ?? null,
          input.groupId ?? null,
          input.status ?? null,
          input.createdAt ?? null,
        ]),
      ]),
    )
    .digest('base64url');

/**
 * A bulk add of more than one transaction, all or nothing: (1) its marker is opened (or, for a
 * retry of the same body, found) under the digest of the organization and the body; (2) every
 * asset whose group exists is staged under the marker's batch: a staged item, and its identity
 * claimed for the batch (so no other request adds it meanwhile); nothing of this is in a listing,
 * a group count or the check index. (3) One conditional update of the marker commits the batch:
 * the commit point. (4) Each transaction of the publication then makes some assets live with
 * their group counts and check-index entries, so counts and the check always agree with what is
 * listed; an identity still claimed for the batch is what says an asset is not yet published, so
 * no asset is published twice. (5) The marker is deleted. A request interrupted before (3) leaves
 * nothing visible, and the sweeper (`resumeBulkAdds`) releases its claims once it is abandoned;
 * one interrupted after (3) is published by the sweeper, or by a retry of the same body, which
 * also takes up a staging left unfinished.
 */
export const bulkAdds = (db: DynamoDBDocumentClient, TableName: string) => {
  const changes = changeWriter(db, TableName);
  const { open, undoing, readMarker, move, close, readStaged } = bulkAddMarkers(db, TableName);

  /** Stages inputs `[start, end)` but those whose identity is held or whose group is gone. */
  const stagingChanges = (
    orgId: string,
    inputs: readonly PreparedAsset[],
    { start, end }: Chunk,
    skip: (index: number) => boolean,
    batch: string,
    ids: { base: number; now: string },
  ) => {
    const set: Change<never, BulkRetry>[] = [];
    const staged = new Map<number, Staged>();
    const expiresAt = Math.floor(Date.now() / 1000) + STAGED_TTL_S;
    for (let index = start; index < end; index++) {
      if (skip(index)) continue;
      const input = inputs[index] as PreparedAsset;
      const asset = newAsset(orgId, input, ids.base + index, ids.now);
      const identity = key.assetIdentity(orgId, asset.type, input.identity);
      const entry: Staged = {
        index,
        asset,
        identitySK: identity.SK,
        ...(asset.status === 'ALLOWED' && input.checkKey !== undefined ? { checkKey: input.checkKey } : {}),
      };
      set.push(
        record({
          Put: {
            Item: {
              ...key.stagedAsset(orgId, batch, index),
              entity: 'STAGED_ASSET',
              ...entry,
              [ATTR.ttl]: expiresAt,
            },
          },
        }),
        record(
          {
            Put: {
              Item: { ...identity, entity: 'ASSET_IDENTITY', assetId: asset.id, pendingBatch: batch },
              ConditionExpression: 'attribute_not_exists(PK) OR pendingBatch = :batch',
              ExpressionAttributeValues: { ':batch': batch },
            },
          },
          retry(`identity:${index}` as const),
        ),
      );
      staged.set(index, entry);
    }
    return { set, staged };
  };

  /** The groups of `ids` that exist, read once: staging transactions share no item, so they never conflict. */
  const existingGroups = async (orgId: string, ids: readonly number[]): Promise<Set<number>> => {
    const found = await batchGetAll(
      db,
      TableName,
      ids.map((id) => key.group(orgId, id)),
      { expression: '#id', names: { '#id': 'id' } },
      { consistent: true },
    );
    return new Set(found.map((item) => item.id as number));
  };

  const stage = async (orgId: string, inputs: readonly PreparedAsset[], batch: string) => {
    const ids = { base: newAssetId(), now: new Date().toISOString() };
    const named = [...new Set(inputs.flatMap((input) => (typeof input.groupId === 'number' ? [input.groupId] : [])))];
    const groups = named.length > 0 ? await existingGroups(orgId, named) : new Set<number>();
    const groupGone = (index: number) => {
      const group = inputs[index]?.groupId;
      return typeof group === 'number' && !groups.has(group);
    };
    const chunks = packUnits(
      inputs.length,
      (start, end) => stagingChanges(orgId, inputs, { start, end }, () => false, batch, ids).set,
    );
    const staged = new Map<number, Staged>();
    const refused = new Map<number, 'exists' | 'group-gone'>();
    await mapConcurrently(
      chunks,
      CHUNK_CONCURRENCY,
      async (chunk) => {
        let built = new Map<number, Staged>();
        await changes.commit(
          (retried: ReadonlySet<BulkRetry>) => {
            const skip = (index: number) => groupGone(index) || retried.has(`identity:${index}`);
            const next = stagingChanges(orgId, inputs, chunk, skip, batch, ids);
            built = next.staged;
            return next.set;
          },
          { maxAttempts: MAX_ATTEMPTS + chunk.end - chunk.start },
        );
        for (let index = chunk.start; index < chunk.end; index++) {
          const entry = built.get(index);
          if (entry) staged.set(index, entry);
          else refused.set(index, groupGone(index) ? 'group-gone' : 'exists');
        }
      },
      { toEnd: true },
    );
    return { staged: [...staged.values()], refused };
  };

  /**
   * Makes staged assets live, with their group counts and check-index entries. One whose identity
   * the batch no longer claims was published already; one whose id another asset took gets a new
   * one; one whose group was deleted meanwhile is published ungrouped, as the delete would have left it.
   */
  const publishChanges = (
    orgId: string,
    batch: string,
    entries: readonly Staged[],
    retried: ReadonlySet<BulkRetry>,
    rebase: number,
  ) => {
    const set: Change<never, BulkRetry>[] = [];
    const published = new Map<number, Asset>();
    const groupDeltas = new Map<number, number>();
    const deltas: VerdictDelta[] = [];
    for (const entry of entries) {
      if (retried.has(`done:${entry.index}`)) continue;
      const kept = entry.asset.groupId;
      const groupId = kept !== null && retried.has(`group:${kept}`) ? null : kept;
      const id = retried.has(`asset:${entry.index}`) ? rebase + entry.index : entry.asset.id;
      const asset: Asset = { ...entry.asset, id, groupId };
      set.push(
        claim(key.asset(id), liveAssetItem(asset, entry.identitySK, entry.checkKey), retry(`asset:${entry.index}`)),
        record(
          {
            Update: {
              Key: key.storedAssetIdentity(orgId, entry.identitySK),
              UpdateExpression: 'SET assetId = :id REMOVE pendingBatch',
              ConditionExpression: 'pendingBatch = :batch',
              ExpressionAttributeValues: { ':id': id, ':batch': batch },
            },
          },
          retry(`done:${entry.index}` as const),
        ),
      );
      if (id !== entry.asset.id) {
        set.push(
          record({
            Update: {
              Key: key.stagedAsset(orgId, batch, entry.index),
              UpdateExpression: 'SET #asset.#id = :id',
              ExpressionAttributeNames: { '#asset': 'asset', '#id': 'id' },
              ExpressionAttributeValues: { ':id': id },
            },
          }),
        );
      }
      if (groupId !== null) groupDeltas.set(groupId, (groupDeltas.get(groupId) ?? 0) + 1);
      if (entry.checkKey !== undefined) {
        deltas.push(allowlisting(asset, entry.checkKey, 1));
        set.push(...collectionChanges<never, BulkRetry>([allowedMove(asset, entry.checkKey, true)]));
      }
      published.set(entry.index, asset);
    }
    for (const [group, delta] of groupDeltas) {
      set.push(record(groupCount(orgId, group, delta), retry(`group:${group}` as const)));
    }
    if (deltas.length > 0) set.push(verdicts(deltas));
    return { set, published };
  };

  const publish = async (orgId: string, batch: string, entries: readonly Staged[]) => {
    // Sized as if every id were taken again: the rebuild of a part never outgrows its transaction.
    const chunks = packUnits(entries.length, (start, end) => {
      const part = entries.slice(start, end);
      const all = new Set(part.map((entry) => `asset:${entry.index}` as const));
      return publishChanges(orgId, batch, part, all, 0).set;
    });
    const published = new Map<number, Asset>();
    await mapConcurrently(
      chunks,
      CHUNK_CONCURRENCY,
      async ({ start, end }) => {
        const part = entries.slice(start, end);
        let built = new Map<number, Asset>();
        await changes.commit(
          (retried: ReadonlySet<BulkRetry>) => {
            const next = publishChanges(orgId, batch, part, retried, newAssetId());
            built = next.published;
            return next.set;
          },
          { maxAttempts: MAX_ATTEMPTS + part.length },
        );
        for (const [index, asset] of built) published.set(index, asset);
        // Published by another run of this batch: as staged.
        for (const entry of part) if (!built.has(entry.index)) published.set(entry.index, entry.asset);
      },
      { toEnd: true },
    );
    return published;
  };

  /** Releases the identities a batch still claims; its staged items expire on their own. */
  const undo = async (marker: BulkMarker) => {
    const entries = await readStaged(marker);
    const parts = Array.from({ length: Math.ceil(entries.length / TRANSACTION_ITEMS) }, (_, i) =>
      entries.slice(i * TRANSACTION_ITEMS, (i + 1) * TRANSACTION_ITEMS),
    );
    await mapConcurrently(
      parts,
      CHUNK_CONCURRENCY,
      async (part) => {
        await changes.commit(
          (retried: ReadonlySet<BulkRetry>) =>
            part
              .filter((entry) => !retried.has(`done:${entry.index}`))
              .map((entry) =>
                record(
                  {
                    Delete: {
                      Key: key.storedAssetIdentity(marker.orgId, entry.identitySK),
                      ConditionExpression: 'pendingBatch = :batch',
                      ExpressionAttributeValues: { ':batch': marker.batch },
                    },
                  },
                  retry(`done:${entry.index}` as const),
                ),
              ),
          { maxAttempts: MAX_ATTEMPTS + part.length },
        );
      },
      { toEnd: true },
    );
  };

  const closeQuietly = (marker: BulkMarker) =>
    close(marker).catch((error: unknown) => {
      // Everything is published; the sweeper deletes the marker.
      if (!(error instanceof ConditionalCheckFailedException)) logger.warn('Bulk add marker left open', { error });
    });

  return {
    async add(orgId: string, inputs: readonly PreparedAsset[]): Promise<AddOutcome[]> {
      const request = requestDigest(orgId, inputs);
      let marker = await open(orgId, request);
      let refused = new Map<number, 'exists' | 'group-gone'>();
      let entries: Staged[];
      if (marker.state === 'staging') {
        const stagedNow = await stage(orgId, inputs, marker.batch);
        entries = stagedNow.staged;
        refused = stagedNow.refused;
        if (!(await move(marker, 'staging', 'committed'))) {
          const found = await readMarker(orgId, request);
          if (found?.state !== 'committed' || found.batch !== marker.batch) throw undoing();
          marker = found;
          entries = await readStaged(marker);
        }
      } else {
        entries = await readStaged(marker);
      }
      const published = await publish(orgId, marker.batch, entries);
      await closeQuietly(marker);
      return inputs.map((_, index): AddOutcome => {
        const asset = published.get(index);
        return asset ? { created: asset } : { failed: refused.get(index) ?? 'exists' };
      });
    },

    async resume(before: string, deadline: number) {
      let published = 0;
      let undone = 0;
      for await (const page of queryPages(db, {
        TableName,
        IndexName: ACTIVITY_INDEX.list1.name,
        KeyConditionExpression: '#pk = :pk AND #sk < :before',
        ExpressionAttributeNames: { '#pk': ACTIVITY_INDEX.list1.partitionKey, '#sk': ACTIVITY_INDEX.list1.sortKey },
        ExpressionAttributeValues: { ':pk': OPEN_BULK_ADDS, ':before': before },
      })) {
        for (const marker of page as BulkMarker[]) {
          if (Date.now() >= deadline) return { published, undone };
          if (marker.state === 'committed') {
            await publish(marker.orgId, marker.batch, await readStaged(marker));
            await close(marker).catch((error: unknown) => {
              if (!(error instanceof ConditionalCheckFailedException)) throw error;
            });
            published++;
            continue;
          }
          // A retry that touched the marker since it was listed is still staging it.
          if (marker.state === 'staging' && !(await move(marker, 'staging', 'aborting', marker.touchedAt))) continue;
          await undo(marker);
          await close(marker).catch((error: unknown) => {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
          });
          undone++;
        }
      }
      return { published, undone };
    },
  };
};
