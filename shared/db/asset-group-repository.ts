import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Group, GroupStore } from '../domain/groups.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { batchGetAll } from './batch.ts';
import { ATTR, INDEX, key, liveKeys, livePartition } from './keys.ts';
import { failedConditions, type TransactItem, transactWithRetry } from './transactions.ts';

const NAME_TAKEN = 'A group with this name already exists';
const notFound = (id: number) => new NotFoundError(`Group with ID ${id} not found`);
const putNew = (TableName: string, Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
});

/** Every create in an organization contends for its one counter item. */
const MAX_CREATE_ATTEMPTS = 30;

type GroupItem = { id: number; name: string; assetCount?: number };
const toGroup = (item: GroupItem): Group => ({ id: item.id, name: item.name, assetCount: item.assetCount ?? 0 });

export const assetGroupRepository = (db: DynamoDBDocumentClient, table: string): GroupStore => {
  const lastGroupId = async (orgId: string): Promise<number> => {
    const { Item } = await db.send(
      new GetCommand({ TableName: table, Key: key.groupCounter(orgId), ConsistentRead: true }),
    );
    return Number(Item?.lastId ?? 0);
  };

  /** Moves the counter from the value it was read at, so the id is issued only if the whole transaction commits. */
  const issueId = (orgId: string, last: number, id: number): TransactItem => ({
    Update: {
      TableName: table,
      Key: key.groupCounter(orgId),
      UpdateExpression: 'SET lastId = :id',
      ConditionExpression: last === 0 ? 'attribute_not_exists(lastId)' : 'lastId = :last',
      ExpressionAttributeValues: last === 0 ? { ':id': id } : { ':id': id, ':last': last },
    },
  });

  const find = async (orgId: string, id: number): Promise<Group | undefined> => {
    const { Item } = await db.send(
      new GetCommand({ TableName: table, Key: key.group(orgId, id), ConsistentRead: true }),
    );
    return Item ? toGroup(Item as GroupItem) : undefined;
  };

  /** Moves the group's live assets to "ungrouped"; the group item is already gone, so no counter moves. */
  const ungroupAssets = async (orgId: string, id: number): Promise<number> => {
    const seen = new Set<number>();
    let moved = 0;
    for (;;) {
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: table,
          IndexName: INDEX.byGroup.name,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': INDEX.byGroup.partitionKey },
          ExpressionAttributeValues: { ':pk': livePartition(orgId, { groupId: id }) },
          Limit: 100,
        }),
      );
      // The index is eventually consistent: stop once it shows nothing this pass has not handled.
      const fresh = Items.filter((item) => !seen.has(item.id as number));
      if (fresh.length === 0) return moved;
      for (const item of fresh) {
        seen.add(item.id as number);
        const live = liveKeys({ orgId, id: item.id, type: item.type, groupId: null, createdAt: item.createdAt });
        try {
          await db.send(
            new UpdateCommand({
              TableName: table,
              Key: key.asset(item.id as number),
              UpdateExpression: 'SET groupId = :none, #lg = :lg, #ltg = :ltg, version = version + :one',
              ConditionExpression: 'groupId = :id AND attribute_exists(#live)',
              ExpressionAttributeNames: { '#lg': ATTR.liveGroup, '#ltg': ATTR.liveTypeGroup, '#live': ATTR.liveSort },
              ExpressionAttributeValues: {
                ':none': null,
                ':id': id,
                ':one': 1,
                ':lg': live[ATTR.liveGroup],
                ':ltg': live[ATTR.liveTypeGroup],
              },
            }),
          );
          moved++;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }
      }
    }
  };

  return {
    async list(orgId) {
      const groups: Group[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': key.org(orgId).PK, ':prefix': key.groupPrefix },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) groups.push(toGroup(item as GroupItem));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return groups;
    },

    async create(orgId, name) {
      let id = 0;
      const build = async () => {
        const last = await lastGroupId(orgId);
        id = last + 1;
        return {
          counter: issueId(orgId, last, id),
          group: putNew(table, { ...key.group(orgId, id), entity: 'GROUP', orgId, id, name, assetCount: 0 }),
          name: putNew(table, { ...key.groupName(orgId, name), entity: 'GROUP_NAME', groupId: id, name }),
        };
      };
      try {
        // A concurrent create took the id: its group item exists and the counter moved on.
        await transactWithRetry(db, build, { retryOn: ['counter', 'group'], maxAttempts: MAX_CREATE_ATTEMPTS });
      } catch (error) {
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
      await transactWithRetry(
        db,
        async () => {
          const group = await find(orgId, id);
          if (!group) throw notFound(id);
          return {
            group: {
              Delete: {
                TableName: table,
                Key: key.group(orgId, id),
                ConditionExpression: '#name = :name',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': group.name },
              },
            },
            name: { Delete: { TableName: table, Key: key.groupName(orgId, group.name) } },
          };
        },
        { retryOn: ['group'] },
      );
      return ungroupAssets(orgId, id);
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
