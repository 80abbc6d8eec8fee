import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../../shared/db/asset-group-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { NotFoundError } from '../../../shared/errors.ts';
import { cancelled, mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const TABLE = 'groups-table';
const givenGroup = (item: Record<string, unknown> | undefined) =>
  ddb.on(GetCommand, { Key: key.group('acme', 4) }).resolves({ Item: item });
const givenRemoval = (item: Record<string, unknown> | undefined) =>
  ddb.on(GetCommand, { Key: key.groupRemoval('acme', 4) }).resolves({ Item: item });
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeEach(() => {
  ddb.reset();
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(QueryCommand).resolves({ Items: [] });
});

// Ungrouping itself (exact steps, interruptions, a lagging index) is tested against DynamoDB Local
// in test/integration/group-removal.test.ts.
describe('assetGroupRepository.remove', () => {
  it('deletes the group and its name and records a removal of exactly its assetCount, in one transaction', async () => {
    givenGroup({ id: 4, name: 'Doomed', assetCount: 3 });
    givenRemoval(undefined);

    const unassigned = await assetGroupRepository(ddb as never, TABLE).remove('acme', 4);

    expect(unassigned).toBe(3);
    const [first] = transactions();
    expect(first?.map((item) => Object.keys(item)[0])).toEqual(['Delete', 'Delete', 'Put']);
    expect(first?.[0]?.Delete?.ExpressionAttributeValues).toEqual({ ':name': 'Doomed', ':count': 3 });
    expect(first?.[2]?.Put?.Item).toMatchObject({ ...key.groupRemoval('acme', 4), assetCount: 3, remaining: 3 });
  });

  it('records no removal for a group without assets', async () => {
    givenGroup({ id: 4, name: 'Empty', assetCount: 0 });
    givenRemoval(undefined);

    await assetGroupRepository(ddb as never, TABLE).remove('acme', 4);

    expect(transactions()[0]?.map((item) => Object.keys(item)[0])).toEqual(['Delete', 'Delete']);
  });

  it('resumes the unfinished removal of a group already gone, then answers 404', async () => {
    givenGroup(undefined);
    givenRemoval({ orgId: 'acme', groupId: 4, assetCount: 3, remaining: 0 });

    await expect(assetGroupRepository(ddb as never, TABLE).remove('acme', 4)).rejects.toThrow(
      new NotFoundError('Group with ID 4 not found'),
    );
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input.Key)).toEqual([
      key.groupRemoval('acme', 4),
    ]);
  });

  it('answers 404 when a concurrent delete removed the group between its read and its transaction', async () => {
    ddb
      .on(GetCommand, { Key: key.group('acme', 4) })
      .resolvesOnce({ Item: { id: 4, name: 'Doomed', assetCount: 3 } })
      .resolves({ Item: undefined });
    givenRemoval(undefined);
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed']));

    await expect(assetGroupRepository(ddb as never, TABLE).remove('acme', 4)).rejects.toThrow(
      new NotFoundError('Group with ID 4 not found'),
    );
    expect(transactions()).toHaveLength(1);
  });

  it('answers 404 for a group that is gone with nothing left to ungroup', async () => {
    givenGroup(undefined);
    givenRemoval(undefined);

    await expect(assetGroupRepository(ddb as never, TABLE).remove('acme', 4)).rejects.toThrow(
      new NotFoundError('Group with ID 4 not found'),
    );
  });
});
