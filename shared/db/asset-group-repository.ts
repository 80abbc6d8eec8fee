import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Group, GroupStore } from '../domain/groups.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { logger } from '../logger.ts';
import { batchGetAll, queryPages } from './batch.ts';
import { ATTR, INDEX, key, liveKeys, livePartition } from './keys.ts';
import { failedConditions, type TransactItem, transactWithRetry } from './transactions.ts';

const NAME_TAKEN = 'A group with this name already exists';
const notFound = (id: number) => new NotFoundError(`Group with ID ${id} not found`);
const putNew = (TableName: string, Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
});

/**
 * Group ids one counter update reserves. A create no longer writes the counter in its transaction,
 * so creates in one organization do not conflict with each other; a container that goes away loses
 * at most this many ids less one, so ids stay small per-organization numbers.
 */
const ID_BLOCK = 10;

type GroupItem = { id: number; name: string; assetCount?: number };
type RemovalItem = { orgId: string; groupId: number; assetCount: number; remaining: number };

/** Assets per ungrouping transaction: DynamoDB's 100 items, less the removal's own count. */
const UNGROUP_BATCH = 99;
/** How long a delete request goes on ungrouping before it answers and leaves the rest to the sweeper. */
const INLINE_BUDGET_MS = 1500;
const LAG_PAUSE_MS = 200;
const toGroup = (item: GroupItem): Group => ({ id: item.id, name: item.name, assetCount: item.assetCount ?? 0 });

export const assetGroupRepository = (db: DynamoDBDocumentClient, table: string): GroupStore => {
  /** Ids reserved by this container and not yet issued, per organization, smallest first. */
  const reserved = new Map<string, number[]>();
  /** The counter update under way for an organization: creates that find no id left wait for it. */
  const reserving = new Map<string, Promise<void>>();

  /** `ADD` is not a transaction: concurrent reservations queue on the counter item instead of conflicting. */
  const reserveBlock = async (orgId: string): Promise<void> => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: key.groupCounter(orgId),
        UpdateExpression: 'ADD lastId :block',
        ExpressionAttributeValues: { ':block': ID_BLOCK },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const last = Number(Attributes?.lastId);
    const ids = reserved.get(orgId) ?? [];
    ids.push(...Array.from({ length: ID_BLOCK }, (_, i) => last - ID_BLOCK + 1 + i));
    reserved.set(
      orgId,
      ids.sort((a, b) => a - b),
    );
  };

  const takeId = async (orgId: string): Promise<number> => {
    for (;;) {
      const id = reserved.get(orgId)?.shift();
      if (id !== undefined) return id;
      let pending = reserving.get(orgId);
      if (!pending) {
        pending = reserveBlock(orgId).finally(() => reserving.delete(orgId));
        reserving.set(orgId, pending);
      }
      await pending;
    }
  };

  /** An id whose group was not written goes back, so a refused create costs no id. */
  const giveBack = (orgId: string, id: number) => {
    const ids = reserved.get(orgId) ?? [];
    ids.push(id);
    reserved.set(
      orgId,
      ids.sort((a, b) => a - b),
    );
  };

  const find = async (orgId: string, id: number): Promise<Group | undefined> => {
    const { Item } = await db.send(
      new GetCommand({ TableName: table, Key: key.group(orgId, id), ConsistentRead: true }),
    );
    return Item ? toGroup(Item as GroupItem) : undefined;
  };

  /** The unfinished removal of group `id`, if any: how many of its assets are still to be ungrouped. */
  const findRemoval = async (orgId: string, id: number): Promise<RemovalItem | undefined> => {
    const { Item } = await db.send(
      new GetCommand({ TableName: table, Key: key.groupRemoval(orgId, id), ConsistentRead: true }),
    );
    return Item as RemovalItem | undefined;
  };

  /** Takes one asset out of the deleted group, provided it is still live and still in it. */
  const ungroupAsset = (orgId: string, item: Record<string, unknown>): TransactItem => {
    const live = liveKeys({
      orgId,
      id: item.id as number,
      type: item.type as string,
      groupId: null,
      createdAt: item.createdAt as string,
    });
    return {
      Update: {
        TableName: table,
        Key: key.asset(item.id as number),
        UpdateExpression: 'SET groupId = :none, #lg = :lg, #ltg = :ltg, version = version + :one',
        ConditionExpression: 'groupId = :id AND attribute_exists(#live)',
        ExpressionAttributeNames: { '#lg': ATTR.liveGroup, '#ltg': ATTR.liveTypeGroup, '#live': ATTR.liveSort },
        ExpressionAttributeValues: {
          ':none': null,
          ':id': item.groupId,
          ':one': 1,
          ':lg': live[ATTR.liveGroup],
          ':ltg': live[ATTR.liveTypeGroup],
        },
      },
    };
  };

  /**
   * One step of a removal: ungroups up to 99 of the group's assets in one transaction that also
   * lowers the removal's `remaining` by as many, so the count stays exact whatever is interrupted
   * where; the removal item goes once nothing remains.
   */
  const ungroupBatch = async (orgId: string, id: number): Promise<'done' | 'progress' | 'lagging'> => {
    const removal = await findRemoval(orgId, id);
    if (!removal) return 'done';
    if (removal.remaining <= 0) {
      await db.send(
        new DeleteCommand({
          TableName: table,
          Key: key.groupRemoval(orgId, id),
          ConditionExpression: 'remaining <= :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
      return 'done';
    }
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: INDEX.byGroup.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': INDEX.byGroup.partitionKey },
        ExpressionAttributeValues: { ':pk': livePartition(orgId, { groupId: id }) },
        Limit: UNGROUP_BATCH,
      }),
    );
    // The index is eventually consistent: an asset the removal counts may not be visible yet.
    if (Items.length === 0) return 'lagging';
    const names = Items.map((_, i) => `asset${i}`);
    await transactWithRetry(
      db,
      (failedBefore) => {
        const left = Items.filter((_, i) => !failedBefore.has(`asset${i}`));
        if (left.length === 0) return {};
        const assets = Object.fromEntries(
          Items.map((item, i) => [`asset${i}`, failedBefore.has(`asset${i}`) ? undefined : ungroupAsset(orgId, item)]),
        );
        return {
          ...assets,
          removal: failedBefore.has('removal')
            ? undefined
            : {
                Update: {
                  TableName: table,
                  Key: key.groupRemoval(orgId, id),
                  UpdateExpression: 'ADD remaining :minus',
                  ConditionExpression: 'attribute_exists(PK)',
                  ExpressionAttributeValues: { ':minus': -left.length },
                },
              },
        };
      },
      { retryOn: [...names, 'removal'] },
    );
    return 'progress';
  };

  /**
   * A removal recorded by an earlier version, in the one partition all organizations shared, moved
   * to its organization's shard (in one transaction, so it is in exactly one of the two).
   */
  const relocateRemoval = async (item: Record<string, unknown>) => {
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...item, ...key.groupRemoval(item.orgId as string, item.groupId as number) },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Delete: {
                TableName: table,
                Key: { PK: item.PK, SK: item.SK },
                ConditionExpression: 'remaining = :remaining',
                ExpressionAttributeValues: { ':remaining': item.remaining },
              },
            },
          ],
        }),
      );
    } catch (error) {
      // Moved meanwhile by another sweeper, or changed since read: the next sweep moves it.
      if (!(error instanceof TransactionCanceledException)) throw error;
    }
  };

  /** Works on the removal of group `id` until it is finished (true) or `deadline` (epoch ms) passes (false). */
  const drain = async (orgId: string, id: number, deadline: number): Promise<boolean> => {
    while (Date.now() < deadline) {
      const step = await ungroupBatch(orgId, id);
      if (step === 'done') return true;
      if (step === 'lagging') await new Promise((resolve) => setTimeout(resolve, LAG_PAUSE_MS));
    }
    return false;
  };

  return {
    async list(orgId) {
      const groups: Group[] = [];
      for await (const items of queryPages(db, {
        TableName: table,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': key.groups.PK(orgId), ':prefix': key.groups.prefix },
      })) {
        groups.push(...items.map((item) => toGroup(item as GroupItem)));
      }
      return groups;
    },

    async create(orgId, name) {
      let id = 0;
      const build = async (failedBefore: ReadonlySet<string>) => {
        // The group item already exists only if an id was issued twice (a counter restored from a backup).
        if (id === 0 || failedBefore.has('group')) id = await takeId(orgId);
        return {
          group: putNew(table, { ...key.group(orgId, id), entity: 'GROUP', orgId, id, name, assetCount: 0 }),
          name: putNew(table, { ...key.groupName(orgId, name), entity: 'GROUP_NAME', groupId: id, name }),
        };
      };
      try {
        await transactWithRetry(db, build, { retryOn: ['group'] });
      } catch (error) {
        if (id !== 0 && !failedConditions(error).has('group')) giveBack(orgId, id);
        if (failedConditions(error).has('name')) throw new ConflictError(NAME_TAKEN, { cause: error });
        throw error;
      }
      return { id, name, assetCount: 0 };
    },

    async rename(orgId, id, name) {
      let assetCount = 0;
      const build = async () => {
        const group = await find(orgId, id);
        if (!group) throw notFound(id);
        assetCount = group.assetCount;
        if (group.name === name) return {};
        return {
          group: {
            Update: {
              TableName: table,
              Key: key.group(orgId, id),
              UpdateExpression: 'SET #name = :name',
              ConditionExpression: 'attribute_exists(PK) AND #name = :old',
              ExpressionAttributeNames: { '#name': 'name' },
              ExpressionAttributeValues: { ':name': name, ':old': group.name },
            },
          },
          oldName: { Delete: { TableName: table, Key: key.groupName(orgId, group.name) } },
          newName: putNew(table, { ...key.groupName(orgId, name), entity: 'GROUP_NAME', groupId: id, name }),
        };
      };
      try {
        await transactWithRetry(db, build, { retryOn: ['group'] });
      } catch (error) {
        if (failedConditions(error).has('newName')) throw new ConflictError(NAME_TAKEN, { cause: error });
        throw error;
      }
      return { id, name, assetCount };
    },

    async remove(orgId, id) {
      let assetCount = 0;
      let removed = false;
      await transactWithRetry(
        db,
        async () => {
          const group = await find(orgId, id);
          // A concurrent delete that committed first leaves the group gone on this rebuild.
          removed = group !== undefined;
          if (!group) return {};
          assetCount = group.assetCount;
          return {
            group: {
              Delete: {
                TableName: table,
                Key: key.group(orgId, id),
                ConditionExpression: '#name = :name AND (assetCount = :count OR attribute_not_exists(assetCount))',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': group.name, ':count': group.assetCount },
              },
            },
            name: { Delete: { TableName: table, Key: key.groupName(orgId, group.name) } },
            removal:
              assetCount === 0
                ? undefined
                : putNew(table, {
                    ...key.groupRemoval(orgId, id),
                    entity: 'GROUP_REMOVAL',
                    orgId,
                    groupId: id,
                    assetCount,
                    remaining: assetCount,
                    deletedAt: new Date().toISOString(),
                  }),
          };
        },
        // The removal item exists only once the group is deleted: the rebuild then finds it gone.
        { retryOn: ['group', 'removal'] },
      );
      try {
        await drain(orgId, id, Date.now() + INLINE_BUDGET_MS);
      } catch (error) {
        logger.warn('Group removal left to the sweeper', { orgId, groupId: id, error });
      }
      // Another delete (concurrent, or an earlier try of this one) removed it; this one resumed what it left.
      if (!removed) throw notFound(id);
      return assetCount;
    },

    async resumeRemovals(deadline) {
      let finished = 0;
      let unfinished = 0;
      for (const partition of key.groupRemovals.partitions) {
        const removals = queryPages(db, {
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ConsistentRead: partition === key.groupRemovals.legacyPK,
        });
        for await (const items of removals) {
          for (const item of items) {
            const orgId = item.orgId as string;
            const groupId = item.groupId as number;
            if (partition === key.groupRemovals.legacyPK) await relocateRemoval(item);
            if (Date.now() < deadline && (await drain(orgId, groupId, deadline))) finished++;
            else unfinished++;
          }
        }
      }
      return { finished, unfinished };
    },

    async namesOf(orgId, ids) {
      const items = await batchGetAll(
        db,
        table,
        ids.map((id) => key.group(orgId, id)),
        { expression: 'id, #name', names: { '#name': 'name' } },
      );
      return new Map(items.map((item) => [item.id as number, item.name as string]));
    },
  };
};
