import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
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
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'assetId in the body must match the path'));
  });

  it('returns 400 and deletes nothing when the body is a JSON array', async () => {
    const apiKey = givenApiKey(ddb);

    const event = apiEvent({ method: 'DELETE', apiKey, pathParameters: { assetId: '5' }, body: [5] });
    const response = await call(deleteAsset, event);

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Request body must be a JSON object'));
    expect(ddb.commandCalls(TransactWriteCommand)).toEqual([]);
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
      errorBody('BAD_REQUEST', 'Provide at least one of name, description or groupId'),
    );
  });
});
