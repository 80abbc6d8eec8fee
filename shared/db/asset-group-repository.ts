import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type Group,
  type GroupRecords,
  type GroupStore,
  groupStore,
  type RemovalStep,
} from '../domain/allowlist/groups.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { logger } from '../logger.ts';
import { batchGetAll, queryPages } from './batch.ts';
import { changeWriter, claim, type Outcome, record, refuse, release, retry, type Write } from './change-set.ts';
import { ATTR, INDEX, key, liveKeys, livePartition } from './keys.ts';
import { TRANSACTION_ITEMS } from './limits.ts';

const NAME_TAKEN = 'A group with this name already exists';
/** Why a create or rename is refused: another group holds the name. */
const nameTaken = 'nameTaken' as const;
const notFound = (id: number) => new NotFoundError(`Group with ID ${id} not found`);

/**
 * Group ids one counter update reserves. A create no longer writes the counter in its transaction,
 * so creates in one organization do not conflict with each other; a container that goes away loses
 * at most this many ids less one, so ids stay small per-organization numbers.
 */
const ID_BLOCK = 10;

type GroupItem = { id: number; name: string; assetCount?: number };
type RemovalItem = { orgId: string; groupId: number; assetCount: number; remaining: number };

const toGroup = (item: GroupItem): Group => ({ id: item.id, name: item.name, assetCount: item.assetCount ?? 0 });

/** The stored groups, their names and removals, as the steps of the domain's group process. */
export const groupRecords = (db: DynamoDBDocumentClient, table: string): GroupRecords => {
  const changes = changeWriter(db, table);
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
  const ungroupAsset = (orgId: string, item: Record<string, unknown>): Write => {
    const live = liveKeys({
      orgId,
      id: item.id as number,
      type: item.type as string,
      groupId: null,
      createdAt: item.createdAt as string,
    });
    return {
      Update: {
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
   * One step of a removal: ungroups the group's assets that one transaction holds, in the change
   * that also lowers the removal's `remaining` by as many, so the count stays exact whatever is
   * interrupted where; the removal item goes once nothing remains.
   */
  const ungroupNext = async (orgId: string, id: number): Promise<RemovalStep> => {
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
        Limit: TRANSACTION_ITEMS - 1,
      }),
    );
    // The index is eventually consistent: an asset the removal counts may not be visible yet.
    if (Items.length === 0) return 'lagging';
    // An asset that failed its condition left the group (or was deleted) meanwhile: it is not counted again.
    await changes.commit<never, number | 'removal'>((retried) => {
      const left = Items.filter((item) => !retried.has(item.id as number));
      if (left.length === 0) return [];
      const ungroup = left.map((item) => record(ungroupAsset(orgId, item), retry(item.id as number)));
      if (retried.has('removal')) return ungroup;
      return [
        ...ungroup,
        record(
          {
            Update: {
              Key: key.groupRemoval(orgId, id),
              UpdateExpression: 'ADD remaining :minus',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':minus': -left.length },
            },
          },
          retry('removal'),
        ),
      ];
    });
    return 'progress';
  };

  /**
   * A removal recorded by an earlier version, in the one partition all organizations shared, moved
   * to its organization's shard (in one transaction, so it is in exactly one of the two). Moved
   * meanwhile by another sweeper, or changed since read: the next sweep moves it.
   */
  const relocateRemoval = async (item: Record<string, unknown>) => {
    await changes.commit<'moved', never>(() => [
      claim(key.groupRemoval(item.orgId as string, item.groupId as number), item, refuse('moved')),
      record(
        {
          Delete: {
            Key: { PK: item.PK as string, SK: item.SK as string },
            ConditionExpression: 'remaining = :remaining',
            ExpressionAttributeValues: { ':remaining': item.remaining },
          },
        },
        refuse('moved'),
      ),
    ]);
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
      const build = async (retried: ReadonlySet<'idTaken'>) => {
        // The group item already exists only if an id was issued twice (a counter restored from a backup).
        if (id === 0 || retried.has('idTaken')) id = await takeId(orgId);
        return [
          claim(key.group(orgId, id), { entity: 'GROUP', orgId, id, name, assetCount: 0 }, retry('idTaken')),
          claim(key.groupName(orgId, name), { entity: 'GROUP_NAME', groupId: id, name }, refuse(nameTaken)),
        ];
      };
      let outcome: Outcome<typeof nameTaken>;
      try {
        outcome = await changes.commit(build);
      } catch (error) {
        if (id !== 0) giveBack(orgId, id);
        throw error;
      }
      if (!outcome.committed) {
        giveBack(orgId, id);
        throw new ConflictError(NAME_TAKEN);
      }
      return { id, name, assetCount: 0 };
    },

    async rename(orgId, id, name) {
      let assetCount = 0;
      const outcome = await changes.commit(async () => {
        const group = await find(orgId, id);
        if (!group) throw notFound(id);
        assetCount = group.assetCount;
        if (group.name === name) return [];
        return [
          record<typeof nameTaken, 'renamed'>(
            {
              Update: {
                Key: key.group(orgId, id),
                UpdateExpression: 'SET #name = :name',
                ConditionExpression: 'attribute_exists(PK) AND #name = :old',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': name, ':old': group.name },
              },
            },
            retry('renamed'),
          ),
          release(key.groupName(orgId, group.name)),
          claim(key.groupName(orgId, name), { entity: 'GROUP_NAME', groupId: id, name }, refuse(nameTaken)),
        ];
      });
      if (!outcome.committed) throw new ConflictError(NAME_TAKEN);
      return { id, name, assetCount };
    },

    async delete(orgId, id) {
      let assetCount: number | undefined;
      // The group changed (renamed, assets added) or went since it was read: read it again.
      await changes.commit<never, 'changed'>(async () => {
        const group = await find(orgId, id);
        // A concurrent delete that committed first leaves the group gone on this rebuild.
        assetCount = group?.assetCount;
        if (!group) return [];
        return [
          record(
            {
              Delete: {
                Key: key.group(orgId, id),
                ConditionExpression: '#name = :name AND (assetCount = :count OR attribute_not_exists(assetCount))',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': group.name, ':count': group.assetCount },
              },
            },
            retry('changed'),
          ),
          release(key.groupName(orgId, group.name)),
          // The removal item exists only once the group is deleted: the rebuild then finds it gone.
          ...(group.assetCount === 0
            ? []
            : [
                claim(
                  key.groupRemoval(orgId, id),
                  {
                    entity: 'GROUP_REMOVAL',
                    orgId,
                    groupId: id,
                    assetCount: group.assetCount,
                    remaining: group.assetCount,
                    deletedAt: new Date().toISOString(),
                  },
                  retry('changed'),
                ),
              ]),
        ];
      });
      return assetCount;
    },

    ungroupNext,

    async *unfinishedRemovals() {
      for (const partition of key.groupRemovals.partitions) {
        const legacy = partition === key.groupRemovals.legacyPK;
        const pages = queryPages(db, {
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ...(legacy ? { ConsistentRead: true } : { ProjectionExpression: 'orgId, groupId' }),
        });
        for await (const items of pages) {
          if (legacy) for (const item of items) await relocateRemoval(item);
          yield items.map((item) => ({ orgId: item.orgId as string, groupId: item.groupId as number }));
        }
      }
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

export const assetGroupRepository = (db: DynamoDBDocumentClient, table: string): GroupStore =>
  groupStore(groupRecords(db, table), undefined, {
    inlineBudgetMs: 1500,
    lagPauseMs: 200,
    onDeferred: (orgId, groupId, error) => logger.warn('Group removal left to the sweeper', { orgId, groupId, error }),
  });
