import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as createGroup } from '../../../functions/asset-groups/create.ts';
import { handler as deleteGroup } from '../../../functions/asset-groups/delete.ts';
import { handler as listGroups } from '../../../functions/asset-groups/list.ts';
import { key } from '../../../shared/db/keys.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { conditionFailsOn, givenApiKey, mockDb, sameKey } from '../../fixtures/mock-db.ts';

const ddb = mockDb();
/** The organization's group counter stands at `lastId`. */
const givenLastGroupId = (orgId: string, lastId: number) =>
  ddb.on(GetCommand, { Key: key.groupCounter(orgId) }).resolves({ Item: { ...key.groupCounter(orgId), lastId } });
const post = (apiKey: string | null, body: unknown) =>
  apiEvent({ method: 'POST', path: '/organization/asset-groups', apiKey, body });

describe('POST /organization/asset-groups', () => {
  beforeEach(() => ddb.reset());

  it('returns the new group with the id the organization counter issued', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'org-1' });
    givenLastGroupId('org-1', 6);
    ddb.on(TransactWriteCommand).resolves({});

    const response = await call(createGroup, post(apiKey, { name: '  Brand A  ' }));

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ id: 7, name: 'Brand A' });
  });

  it('returns 409 CONFLICT when the organization already has a group with that name', async () => {
    const apiKey = givenApiKey(ddb);
    givenLastGroupId('org-1', 7);
    ddb.on(TransactWriteCommand).callsFake(conditionFailsOn(sameKey(key.groupName('org-1', 'Brand A'))));

    const response = await call(createGroup, post(apiKey, { name: 'Brand A' }));

    expect(response.statusCode).toBe(409);
    expect(response.body).toEqual(errorBody('CONFLICT', 'A group with this name already exists'));
  });

  it('returns 400 "Group name is required" when the body has no name', async () => {
    const apiKey = givenApiKey(ddb);

    const response = await call(createGroup, post(apiKey, {}));

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', 'Group name is required'));
  });

  it('returns 400 when the name is longer than 255 characters', async () => {
    const apiKey = givenApiKey(ddb);

    const response = await call(createGroup, post(apiKey, { name: 'x'.repeat(256) }));

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Group name must be between 1 and 255 characters', {
        issues: [{ message: 'Group name must be between 1 and 255 characters', path: 'body.name' }],
      }),
    );
  });

  it('accepts a 255-character name of astral characters, counted as code points', async () => {
    const apiKey = givenApiKey(ddb);
    givenLastGroupId('org-1', 0);
    ddb.on(TransactWriteCommand).resolves({});

    const response = await call(createGroup, post(apiKey, { name: '😀'.repeat(255) }));

    expect(response.statusCode).toBe(200);
  });

  it('returns 400 when the body is not JSON, whatever the Content-Type', async () => {
    const apiKey = givenApiKey(ddb);

    const response = await call(createGroup, post(apiKey, '{"name":'));

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Request body must be valid JSON'));
  });

  it('returns 401 before reading the body when the key is missing', async () => {
    const response = await call(createGroup, post(null, '{not json'));

    expect(response.statusCode).toBe(401);
    expect(response.body).toEqual(errorBody('UNAUTHORIZED', 'API key with organization access required'));
  });

  it('returns 401 for a user key, which has no organization access', async () => {
    const apiKey = givenApiKey(ddb, { userId: 'u-1' });

    const response = await call(createGroup, post(apiKey, { name: 'A' }));

    expect(response.statusCode).toBe(401);
  });

  it('returns 401 for a revoked key', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'org-1', revoked: true });

    const response = await call(createGroup, post(apiKey, { name: 'A' }));

    expect(response.statusCode).toBe(401);
  });

  it('returns 403 for a key without the write scope', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'org-1', scopes: ['read'] });

    const response = await call(createGroup, post(apiKey, { name: 'A' }));

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'API key does not have write access'));
  });

  it('accepts the key as Authorization: Bearer and with any header case', async () => {
    const apiKey = givenApiKey(ddb);
    ddb.on(QueryCommand).resolves({ Items: [] });

    const bearer = await call(listGroups, apiEvent({ apiKey: null, headers: { Authorization: `Bearer ${apiKey}` } }));
    const mixed = await call(listGroups, apiEvent({ apiKey: null, headers: { 'X-Api-Key': apiKey } }));

    expect([bearer.statusCode, mixed.statusCode]).toEqual([200, 200]);
  });

  it('returns 500 with a request id and no AWS detail when DynamoDB fails', async () => {
    const apiKey = givenApiKey(ddb);
    ddb
      .on(GetCommand, { Key: key.groupCounter('org-1') })
      .rejects(new Error('ProvisionedThroughputExceededException on table prod-table-xyz'));

    const response = await call(createGroup, post(apiKey, { name: 'A' }));

    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual(errorBody('INTERNAL_SERVER_ERROR', 'Internal server error'));
    expect(JSON.stringify(response.body)).not.toMatch(/prod-table|Provisioned|Exception/);
  });
});

describe('GET /organization/asset-groups', () => {
  beforeEach(() => ddb.reset());

  it('lists every group with its stored asset count, empty groups included, in id order', async () => {
    const apiKey = givenApiKey(ddb);
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ id: 2, name: 'B', assetCount: 0 }], LastEvaluatedKey: { PK: 'x', SK: 'y' } })
      .resolvesOnce({ Items: [{ id: 1, name: 'A', assetCount: 3 }] });

    const response = await call(listGroups, apiEvent({ apiKey }));

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      groups: [
        { id: 1, name: 'A', assetCount: 3 },
        { id: 2, name: 'B', assetCount: 0 },
      ],
    });
  });
});

describe('DELETE /organization/asset-groups/{groupId}', () => {
  beforeEach(() => ddb.reset());

  it('returns 404 "Group with ID 4 not found" for a group the organization does not have', async () => {
    ddb.on(GetCommand).resolves({});
    const apiKey = givenApiKey(ddb);

    const event = apiEvent({ method: 'DELETE', apiKey, pathParameters: { groupId: '4' } });
    const response = await call(deleteGroup, event);

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Group with ID 4 not found'));
  });

  it('returns 400 for a group id that is not a positive integer', async () => {
    const apiKey = givenApiKey(ddb);

    const response = await call(deleteGroup, apiEvent({ method: 'DELETE', apiKey, pathParameters: { groupId: '0' } }));

    expect(response.statusCode).toBe(400);
  });
});
