import { createHash } from 'node:crypto';
import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activityRepository } from '../../../shared/db/activity-repository.ts';
import { key } from '../../../shared/db/keys.ts';
import { effectsOf, parseActivityChange } from '../../../shared/domain/activity.ts';
import { cancelled, mockDb } from '../../fixtures/mock-db.ts';

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

const NOW = Date.parse('2026-03-01T10:00:05.000Z');
/** The entry's digest part of a version, as the log writes it. */
const AIRDROP_HASH = createHash('sha256').update('acme-airdrop.xyz').digest('hex').slice(0, 16);

beforeEach(() => {
  ddb.reset();
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The check-index entry as stored before the change. */
const givenCheckEntry = (entry: Record<string, number>) =>
  ddb.on(BatchGetCommand).resolves({
    Responses: { [TABLE]: [{ ...key.checkEntry('acme-airdrop.xyz'), ...entry }] },
  });

describe('activityRepository.commit', () => {
  it('writes a new record, its counter increments, its check-index entry and its verdict change in one transaction', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] } });
    ddb.on(TransactWriteCommand).resolves({});
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(undefined, blocked, effectsOf(undefined, blocked));

    expect(committed).toBe(true);
    expect(transactions()).toEqual([
      {
        TransactItems: [
          {
            Put: {
              TableName: TABLE,
              Item: { ...key.activity('acme', 'threat', 't-1'), entity: 'ACTIVITY', ...blocked },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Update: {
              TableName: TABLE,
              Key: key.orgDay('acme', '2026-03-01'),
              UpdateExpression: 'ADD #a0 :a0, #a1 :a1',
              ConditionExpression: undefined,
              ExpressionAttributeNames: { '#a0': 'threats_URL', '#a1': 'total' },
              ExpressionAttributeValues: { ':a0': 1, ':a1': 1 },
            },
          },
          {
            Update: {
              TableName: TABLE,
              Key: key.brandDay('acme', 'acme-wallet', '2026-03-01'),
              UpdateExpression: 'ADD #a0 :a0, #a1 :a1',
              ConditionExpression: undefined,
              ExpressionAttributeNames: { '#a0': 'threats_URL', '#a1': 'total' },
              ExpressionAttributeValues: { ':a0': 1, ':a1': 1 },
            },
          },
          {
            Update: {
              TableName: TABLE,
              Key: key.checkEntry('acme-airdrop.xyz'),
              UpdateExpression:
                'SET #key = :key, #allow = :allow, #block = :block, #watch = :watch, #version = :seq, #lastChange = :change, #type = :type',
              ConditionExpression: 'attribute_not_exists(#version)',
              ExpressionAttributeNames: {
                '#key': 'key',
                '#allow': 'allow',
                '#block': 'block',
                '#watch': 'watch',
                '#version': 'version',
                '#lastChange': 'lastChange',
                '#type': 'type',
              },
              ExpressionAttributeValues: {
                ':key': 'acme-airdrop.xyz',
                ':allow': 0,
                ':block': 1,
                ':watch': 0,
                ':seq': 1,
                ':change': `1772359205000-${AIRDROP_HASH}-000000000001`,
                ':type': 'URL',
              },
            },
          },
          {
            Put: {
              TableName: TABLE,
              Item: {
                PK: 'VERDICTS#1772359200000',
                SK: `1772359205000-${AIRDROP_HASH}-000000000001`,
                entity: 'VERDICT_CHANGE',
                key: 'acme-airdrop.xyz',
                type: 'URL',
                bits: 2,
                previousBits: 0,
                seq: 1,
                changedAt: '2026-03-01T10:00:05.000Z',
                expiresAt: 1772964005,
              },
            },
          },
        ],
      },
    ]);
  });

  it('replaces only the version it read, and sets the check-index entry only at the sequence it read', async () => {
    givenCheckEntry({ allow: 0, block: 2, watch: 0, version: 7 });
    ddb.on(TransactWriteCommand).resolves({});
    const store = activityRepository(ddb as never, TABLE);

    await store.commit(blocked, rejected, effectsOf(blocked, rejected));

    const [put, org, , check, change] = transactions()[0]?.TransactItems ?? [];
    expect(put?.Put).toMatchObject({
      ConditionExpression: 'updatedAt = :previous',
      ExpressionAttributeValues: { ':previous': '2026-03-01T10:00:00.000Z' },
    });
    expect(org?.Update).toMatchObject({
      ConditionExpression: '#a0 >= :f0 AND #a1 >= :f1',
      ExpressionAttributeValues: { ':a0': -1, ':f0': 1, ':a1': -1, ':f1': 1 },
    });
    expect(check?.Update).toMatchObject({
      ConditionExpression: '#version = :previous',
      ExpressionAttributeValues: { ':block': 1, ':seq': 8, ':previous': 7 },
    });
    expect(change?.Put?.Item).toMatchObject({ key: 'acme-airdrop.xyz', bits: 2, previousBits: 2, seq: 8 });
  });

  it('reads the check-index entry again and retries when another change of it committed first', async () => {
    givenCheckEntry({ allow: 0, block: 2, watch: 0, version: 7 });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'None', 'None', 'ConditionalCheckFailed', 'None']))
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
      .rejectsOnce(cancelled(['None', 'TransactionConflict', 'None', 'None']))
      .resolves({});
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(undefined, blocked, effectsOf(undefined, blocked));

    expect(committed).toBe(true);
    expect(transactions()).toHaveLength(2);
  });

  it('reports false, without retrying, when the stored record is no longer the one read', async () => {
    givenCheckEntry({ allow: 0, block: 0, watch: 0, version: 8 });
    ddb
      .on(TransactWriteCommand)
      .rejects(cancelled(['ConditionalCheckFailed', 'ConditionalCheckFailed', 'None', 'None']));
    const store = activityRepository(ddb as never, TABLE);

    const committed = await store.commit(blocked, rejected, effectsOf(blocked, rejected));

    expect(committed).toBe(false);
    expect(transactions()).toHaveLength(1);
  });

  it('fails loudly when a counter would go below zero for a record that is current', async () => {
    givenCheckEntry({ allow: 0, block: 0, watch: 0, version: 8 });
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'None', 'None', 'ConditionalCheckFailed', 'None']));
    const store = activityRepository(ddb as never, TABLE);

    await expect(store.commit(blocked, rejected, effectsOf(blocked, rejected))).rejects.toThrow(
      'Applying this change would take a counter below zero: records and counters disagree',
    );
  });
});

describe('activityRepository reads', () => {
  it('returns the stored record without its key attributes', async () => {
    ddb
      .on(GetCommand, { Key: key.activity('acme', 'threat', 't-1') })
      .resolves({ Item: { ...key.activity('acme', 'threat', 't-1'), entity: 'ACTIVITY', ...blocked } });
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
