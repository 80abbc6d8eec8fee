import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../../shared/db/asset-group-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const TABLE = 'groups-table';
const asset = (id: number) => ({ id, type: 'URL', orgId: 'acme', groupId: 4, createdAt: '2026-03-01T10:00:00.000Z' });
const movedIds = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key?.PK);
const queries = () => ddb.commandCalls(QueryCommand).length;

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand, { Key: key.group('acme', 4) }).resolves({ Item: { id: 4, name: 'Doomed', assetCount: 3 } });
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
});

// The group index is eventually consistent: after an asset is moved, queries may still show it
// in the group for a while, and an asset added just before the delete may show up only later.
describe('assetGroupRepository.remove under a lagging index', () => {
  it('moves each asset once and stops when the index shows only assets it has already moved', async () => {
    ddb.on(QueryCommand).resolves({ Items: [asset(1), asset(2)] });

    const ungrouped = await assetGroupRepository(ddb as never, TABLE).remove('acme', 4);

    expect(ungrouped).toBe(2);
    expect(movedIds()).toEqual([key.asset(1).PK, key.asset(2).PK]);
    expect(queries()).toBe(2);
  });

  it('moves an asset that shows up in the index only on a later query', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [asset(1)] })
      .resolvesOnce({ Items: [asset(1), asset(3)] })
      .resolves({ Items: [asset(1), asset(3)] });

    const ungrouped = await assetGroupRepository(ddb as never, TABLE).remove('acme', 4);

    expect(ungrouped).toBe(2);
    expect(movedIds()).toEqual([key.asset(1).PK, key.asset(3).PK]);
    expect(queries()).toBe(3);
  });

  it('does not count, nor try again, an asset that left the group or was deleted meanwhile', async () => {
    ddb.on(QueryCommand).resolves({ Items: [asset(1), asset(2)] });
    ddb
      .on(UpdateCommand, { Key: key.asset(2) })
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));

    const ungrouped = await assetGroupRepository(ddb as never, TABLE).remove('acme', 4);

    expect(ungrouped).toBe(1);
    expect(movedIds()).toEqual([key.asset(1).PK, key.asset(2).PK]);
  });
});
