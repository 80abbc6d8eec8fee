import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { activityRepository } from '../../../shared/db/activity-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { effectsOf, parseActivityChange } from '../../../shared/domain/lifecycle/activity.ts';
import { cancelled, conditionFailsOn, mockDb, sameKey } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const TABLE = 'activity-table';
const threat = (input: Record<string, unknown> = {}) =>
  parseActivityChange({
    organization: 'acme',
    kind: 'threat',
    id: 't-1',
    content: 'acme-airdrop.xyz',
    assetType: 'URL',
    status: 'BLOCKED',
    brands: ['acme-wallet'],
    createdAt: '2026-03-01T10:00:00Z',
    ...input,
  });
const blocked = { ...threat(), checkKey: 'acme-airdrop.xyz' };
const rejected = threat({ status: 'REJECTED', updatedAt: '2026-03-02T00:00:00Z' });
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input);

const RECORD = key.activity('acme', 'threat', 't-1');
const ORG_DAY = key.orgDay('acme', '2026-03-01');
const CHECK_ENTRY = key.checkEntry('acme-airdrop.xyz');

beforeEach(() => {
  ddb.reset();
});

/** The check-index entry as stored before the change. */
const givenCheckEntry = (entry: Record<string, number>) =>
  ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [{ ...CHECK_ENTRY, ...entry }] } });

// What a commit writes, and its conditions, are tested on DynamoDB Local (test/integration/activity-repository.test.ts).
describe('activityRepository.commit', () => {
  it('reads the check-index entry again and retries when another change of it committed first', async () => {
    givenCheckEntry({ allow: 0, block: 2, watch: 0, version: 7 });
    ddb
      .on(TransactWriteCommand)
      .callsFakeOnce(conditionFailsOn(sameKey(CHECK_ENTRY)))
      .resolves({});
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(blocked, rejected, effectsOf(blocked, rejected));

    expect(committed).toBe(true);
    expect(transactions()).toHaveLength(2);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('retries a transaction that another transaction conflicted with', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] } });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict']))
      .resolves({});
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(undefined, blocked, effectsOf(undefined, blocked));

    expect(committed).toBe(true);
    expect(transactions()).toHaveLength(2);
  });

  it('reports false, without retrying, when the stored record is no longer the one read', async () => {
    givenCheckEntry({ allow: 0, block: 0, watch: 0, version: 8 });
    ddb.on(TransactWriteCommand).callsFake(conditionFailsOn((k) => sameKey(RECORD)(k) || sameKey(ORG_DAY)(k)));
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(blocked, rejected, effectsOf(blocked, rejected));

    expect(committed).toBe(false);
    expect(transactions()).toHaveLength(1);
  });

  it('fails loudly, without retrying, when a counter would go below zero for a record that is current', async () => {
    givenCheckEntry({ allow: 0, block: 1, watch: 0, version: 8 });
    ddb.on(TransactWriteCommand).callsFake(conditionFailsOn(sameKey(ORG_DAY)));
    const store = activityRepository(ddb as never, TABLE);

    await expect(store.commit(blocked, rejected, effectsOf(blocked, rejected))).rejects.toThrow(
      'Applying this change would take a counter below zero: records and counters disagree',
    );
    expect(transactions()).toHaveLength(1);
  });
});

describe('activityRepository reads', () => {
  it('returns the stored record without its key attributes', async () => {
    ddb.on(GetCommand, { Key: RECORD }).resolves({ Item: { ...RECORD, entity: 'ACTIVITY', ...blocked } });
    const store = activityRepository(ddb as never, TABLE);

    expect(await store.find({ organization: 'acme', kind: 'threat', id: 't-1' })).toEqual(blocked);
  });

  it('reads an organization and its brands once, then remembers what exists', async () => {
    ddb.on(BatchGetCommand).resolves({
      Responses: { [TABLE]: [{ SK: key.org('acme').SK }, { SK: key.brand('acme', 'acme-wallet').SK }] },
    });
    const store = activityRepository(ddb as never, TABLE);

    const first = await store.knownReferences('acme', ['acme-wallet', 'acme-nope']);
    const second = await store.knownReferences('acme', ['acme-wallet']);

    expect(first).toEqual({ organization: true, brands: new Set(['acme-wallet']) });
    expect(second).toEqual({ organization: true, brands: new Set(['acme-wallet']) });
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});
