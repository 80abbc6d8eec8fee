import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as createAssets } from '../../../functions/assets/create.ts';
import { handler as deleteAsset } from '../../../functions/assets/delete.ts';
import { handler as listAssets } from '../../../functions/assets/list.ts';
import { handler as updateAsset } from '../../../functions/assets/update.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { givenApiKey, mockDb } from '../../fixtures/mock-db.ts';

const ddb = mockDb();

describe('GET /organization/assets', () => {
  beforeEach(() => ddb.reset());

  it.each([
    [{ type: 'WEBSITE' }, 'Invalid asset type provided'],
    [{ per_page: '0' }, 'per_page must be an integer between 1 and 1000'],
    [{ per_page: '1001' }, 'per_page must be an integer between 1 and 1000'],
    [{ per_page: '2.5' }, 'per_page must be an integer between 1 and 1000'],
    [{ groupId: '0' }, 'groupId must be a positive integer or -1'],
    [{ groupId: 'abc' }, 'groupId must be a positive integer or -1'],
    [{ query: 'x'.repeat(257) }, 'query must be at most 256 characters'],
  ])('returns 400 for %o with "%s"', async (query, message) => {
    const apiKey = givenApiKey(ddb);

    const response = await call(listAssets, apiEvent({ apiKey, query }));

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', message));
  });

  it('reads 100 assets by default from the organization index, newest first', async () => {
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });
    ddb.on(QueryCommand).resolves({ Items: [] });

    const response = await call(listAssets, apiEvent({ apiKey }));

    expect(response.body).toEqual({ assets: [], next_page: null });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      IndexName: 'liveByOrg',
      ScanIndexForward: false,
      Limit: 100,
      ExpressionAttributeValues: { ':pk': 'ORG#acme' },
    });
  });
});

describe('DELETE /organization/assets/{assetId}', () => {
  beforeEach(() => ddb.reset());

  it('returns 400 "Asset ID is required" for a path id that is not a positive integer', async () => {
    const apiKey = givenApiKey(ddb);

    const response = await call(
      deleteAsset,
      apiEvent({ method: 'DELETE', apiKey, pathParameters: { assetId: 'abc' } }),
    );

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', 'Asset ID is required'));
  });

  it('returns 400 when the body names another asset than the path', async () => {
    const apiKey = givenApiKey(ddb);

    const event = apiEvent({ method: 'DELETE', apiKey, pathParameters: { assetId: '5' }, body: { assetId: 6 } });
    const response = await call(deleteAsset, event);

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual({
      ...errorBody('BAD_REQUEST', 'Path parameter assetId does not match body'),
      issues: [{ message: 'Path parameter assetId does not match body', path: 'body.assetId' }],
    });
  });

  it('returns 403 for an asset of another organization', async () => {
    ddb.on(GetCommand).resolves({ Item: { id: 5, orgId: 'globex', content: 'x', type: 'URL', version: 1 } });
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const response = await call(deleteAsset, apiEvent({ method: 'DELETE', apiKey, pathParameters: { assetId: '5' } }));

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
  });

  it('returns 404 for an asset that was already deleted', async () => {
    ddb.on(GetCommand).resolves({ Item: { id: 5, orgId: 'acme', deletedAt: '2026-01-01T00:00:00Z' } });
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const response = await call(deleteAsset, apiEvent({ method: 'DELETE', apiKey, pathParameters: { assetId: '5' } }));

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Asset with ID 5 not found'));
  });
});

describe('PATCH /organization/assets/{assetId}', () => {
  beforeEach(() => ddb.reset());

  it('returns 400 when the body changes nothing', async () => {
    const apiKey = givenApiKey(ddb);

    const event = apiEvent({ method: 'PATCH', apiKey, pathParameters: { assetId: '5' }, body: {} });
    const response = await call(updateAsset, event);

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(
      errorBody('BAD_REQUEST', 'At least one field (name, description, or groupId) must be provided'),
    );
  });
});

describe('PATCH /organization/assets/{assetId}, answers', () => {
  beforeEach(() => ddb.reset());
  const stored = {
    id: 5,
    orgId: 'acme',
    content: 'https://acme.com',
    type: 'URL',
    status: 'ALLOWED',
    description: null,
    groupId: 2,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    version: 1,
    liveSK: 'x',
  };

  it('returns the asset with its group and its groupId', async () => {
    ddb.on(GetCommand).resolves({ Item: stored });
    ddb.on(TransactWriteCommand).resolves({});
    ddb.on(BatchGetCommand).resolves({ Responses: { 'unit-test-table': [{ id: 2, name: 'Websites' }] } });
    const apiKey = givenApiKey(ddb, { orgId: 'acme' });

    const event = apiEvent({ method: 'PATCH', apiKey, pathParameters: { assetId: '5' }, body: { name: 'Site' } });
    const response = await call(updateAsset, event);

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      id: 5,
      content: 'https://acme.com',
      type: 'URL',
      status: 'ALLOWED',
      name: 'Site',
      description: null,
      group: { id: 2, name: 'Websites' },
      groupId: 2,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: expect.any(String),
    });
  });

  it('returns 400 and changes nothing when the body names another asset than the path', async () => {
    const apiKey = givenApiKey(ddb);

    const event = apiEvent({
      method: 'PATCH',
      apiKey,
      pathParameters: { assetId: '5' },
      body: { assetId: 6, name: 'x' },
    });
    const response = await call(updateAsset, event);

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', 'Path parameter assetId does not match body'));
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('POST /organization/assets', () => {
  beforeEach(() => ddb.reset());
  const url = (i: number) => ({ content: `https://a${i}.example` });

  it.each([
    [{ assets: [{ type: 'URL' }] }, 'Content is required'],
    [{ assets: [{ content: '   ' }] }, 'Content is required'],
    [{ assets: [{ content: 5 }] }, 'Content is required'],
    [{ assets: ['https://example.com'] }, 'Each asset must be an object'],
    [{ assets: [{ content: 'https://example.com', groupId: 0 }] }, 'Invalid group ID'],
    [{ assets: [{ content: 'https://example.com', groupId: '5' }] }, 'Invalid group ID'],
    [{ assets: [{ content: 'https://example.com', groupId: 1.5 }] }, 'Invalid group ID'],
    [{ assets: [{ content: 'https://example.com', type: 'WEBSITE' }] }, 'Invalid asset type provided'],
    [{ assets: [{ content: 'https://example.com', name: 'n'.repeat(256) }] }, 'name must be at most 255 characters'],
    [{ assets: [] }, 'At least one asset is required'],
    [{ assets: Array.from({ length: 1001 }, (_, i) => url(i)) }, 'Maximum 1000 assets allowed per request'],
    [{ asset: [url(1)] }, 'Request body must be an object with an assets array'],
    [{ assets: { content: 'https://example.com' } }, 'assets must be an array'],
  ])('returns 400 and writes nothing for %#: "%s"', async (body, message) => {
    const apiKey = givenApiKey(ddb);

    const response = await call(createAssets, apiEvent({ method: 'POST', apiKey, body }));

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', message));
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('returns 404 "Group with ID 999 not found" and writes nothing when an item names an unknown group', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { 'unit-test-table': [{ id: 1, name: 'Websites' }] } });
    const apiKey = givenApiKey(ddb);

    const body = {
      assets: [
        { ...url(1), groupId: 1 },
        { ...url(2), groupId: 999 },
      ],
    };
    const response = await call(createAssets, apiEvent({ method: 'POST', apiKey, body }));

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Group with ID 999 not found'));
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
