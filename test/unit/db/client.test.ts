import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { lazyClient } from '../../../shared/db/client.ts';
import { mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();

describe('the lazily built document client', () => {
  it('is built by its first command, once, and answers every command', async () => {
    ddb.on(GetCommand).resolves({ Item: { id: 1 } });
    const build = vi.fn(() => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local' })));
    const db = lazyClient(build);
    const builtBeforeUse = build.mock.calls.length;

    const first = await db.send(new GetCommand({ TableName: 't', Key: { PK: 'a' } }));
    const second = await db.send(new GetCommand({ TableName: 't', Key: { PK: 'b' } }));

    expect([builtBeforeUse, build.mock.calls.length]).toEqual([0, 1]);
    expect([first.Item, second.Item]).toEqual([{ id: 1 }, { id: 1 }]);
  });
});
