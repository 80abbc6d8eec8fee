import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Group, GroupStore } from '../domain/groups.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { batchGetAll } from './batch.ts';
import { ATTR, INDEX, key, liveKeys, livePartition } from './keys.ts';
import { backoff, cancellationCodes, conflicted, failedCondition } from './transactions.ts';

const NAME_TAKEN = 'A group with this name already exists';
const notFound = (id: number) => new NotFoundError(`Group with ID ${id} not found`);
const putNew = (TableName: string, Item: Record<string, unknown>) => ({
  Put: { TableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
});
const MAX_ATTEMPTS = 12;

type GroupItem = { id: number; name: string; assetCount?: number };
const toGroup = (item: GroupItem): Group => ({ id: item.id, name: item.name, assetCount: item.assetCount ?? 0 });

export const assetGroupRepository = (db: DynamoDBDocumentClient, table: string): GroupStore => {
  const nextId = async (orgId: string): Promise<number> => {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: key.groupCounter(orgId),
        UpdateExpression: 'ADD lastId :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.lastId);
  };

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
      const id = await nextId(orgId);
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              putNew(table, { ...key.group(orgId, id), entity: 'GROUP', orgId, id, name, assetCount: 0 }),
              putNew(table, { ...key.groupName(orgId, name), entity: 'GROUP_NAME', groupId: id, name }),
            ],
          }),
        );
      } catch (error) {
        if (failedCondition(cancellationCodes(error), 1)) throw new ConflictError(NAME_TAKEN, { cause: error });
        throw error;
      }
      return { id, name, assetCount: 0 };
    },

    async rename(orgId, id, name) {
      for (let attempt = 1; ; attempt++) {
        const group = await find(orgId, id);
        if (!group) throw notFound(id);
        if (group.name === name) return group;
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: table,
                    Key: key.group(orgId, id),
                    UpdateExpression: 'SET #name = :name',
                    ConditionExpression: 'attribute_exists(PK) AND #name = :old',
                    ExpressionAttributeNames: { '#name': 'name' },
                    ExpressionAttributeValues: { ':name': name, ':old': group.name },
                  },
                },
                { Delete: { TableName: table, Key: key.groupName(orgId, group.name) } },
                putNew(table, { ...key.groupName(orgId, name), entity: 'GROUP_NAME', groupId: id, name }),
              ],
            }),
          );
          return { ...group, name };
        } catch (error) {
          const codes = cancellationCodes(error);
          if (failedCondition(codes, 2)) throw new ConflictError(NAME_TAKEN, { cause: error });
          const retry = failedCondition(codes, 0) || conflicted(codes);
          if (!retry || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
    },

    async remove(orgId, id) {
      for (let attempt = 1; ; attempt++) {
        const group = await find(orgId, id);
        if (!group) throw notFound(id);
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: table,
                    Key: key.group(orgId, id),
                    ConditionExpression: '#name = :name',
                    ExpressionAttributeNames: { '#name': 'name' },
                    ExpressionAttributeValues: { ':name': group.name },
                  },
                },
                { Delete: { TableName: table, Key: key.groupName(orgId, group.name) } },
              ],
            }),
          );
          break;
        } catch (error) {
          const codes = cancellationCodes(error);
          const retry = failedCondition(codes, 0) || conflicted(codes);
          if (!retry || attempt >= MAX_ATTEMPTS) throw error;
          await backoff(attempt);
        }
      }
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
