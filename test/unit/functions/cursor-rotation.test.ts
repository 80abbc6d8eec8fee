import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/assets/list.ts';
import { cursorCodec } from '../../../shared/domain/core/cursor.ts';
import * as runtime from '../../../shared/runtime.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
const item = (id: number) => ({
  PK: `ASSET#${id}`,
  SK: 'ASSET',
  liveOrg: 'ORG#acme',
  liveSK: `2026-01-0${id}T00:00:00Z#${String(id).padStart(16, '0')}`,
  id,
  orgId: 'acme',
  type: 'URL',
  content: `https://${id}.example`,
  status: 'ALLOWED',
  createdAt: `2026-01-0${id}T00:00:00Z`,
  updatedAt: `2026-01-0${id}T00:00:00Z`,
});

/** The list handler over a key set that a rotation replaces, as Secrets Manager would serve it. */
let keySet = JSON.stringify({ current: '1', 1: 'key-one' });
const list = createHandler({
  keys: runtime.keys(),
  assets: runtime.assets(),
  groups: runtime.groups(),
  cursors: cursorCodec(() => keySet),
});

describe('GET /organization/assets across a cursor key rotation', () => {
  beforeEach(() => {
    ddb.reset();
    keySet = JSON.stringify({ current: '1', 1: 'key-one' });
  });

  it('answers the next page for a cursor issued before the rotation', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(2)], LastEvaluatedKey: { PK: 'ASSET#2' } })
      .resolves({ Items: [item(1)] });
    const first = await call(list, apiEvent({ apiKey, query: { per_page: '1' } }));
    const cursor = (first.body as { next_page: string }).next_page;

    keySet = JSON.stringify({ current: '2', 1: 'key-one', 2: 'key-two' });
    const next = await call(list, apiEvent({ apiKey, query: { per_page: '1', next_page: cursor } }));

    expect(cursor.startsWith('1.')).toBe(true);
    expect(next.statusCode).toBe(200);
    expect((next.body as { assets: { id: number }[] }).assets.map((asset) => asset.id)).toEqual([1]);
  });

  it('returns 400 for a cursor whose key version was removed from the set', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).resolves({ Items: [item(2)], LastEvaluatedKey: { PK: 'ASSET#2' } });
    const first = await call(list, apiEvent({ apiKey, query: { per_page: '1' } }));
    const cursor = (first.body as { next_page: string }).next_page;

    keySet = JSON.stringify({ current: '2', 2: 'key-two' });
    const next = await call(list, apiEvent({ apiKey, query: { per_page: '1', next_page: cursor } }));

    expect(next.statusCode).toBe(400);
    expect(next.body).toEqual(errorBody('BAD_REQUEST', 'Invalid next_page cursor'));
  });
});
