import { describe, expect, it } from 'vitest';
import { createHandler as createAddAssets } from '../../../functions/assets/create.ts';
import { createHandler as createDeleteAsset } from '../../../functions/assets/delete.ts';
import { createHandler as createListAssets } from '../../../functions/assets/list.ts';
import { createHandler as createUpdateAsset } from '../../../functions/assets/update.ts';
import { cursorCodec } from '../../../shared/domain/core/cursor.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { fakeKeys, inMemoryStores, orgKey } from '../../fixtures/fakes.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const ACME = 'acme-key';
const keys = fakeKeys({ [ACME]: orgKey('acme') });
const cursors = cursorCodec(() => 'test-cursor-secret');

/** The asset endpoints over one in-memory set of stores. */
const endpoints = () => {
  const stores = inMemoryStores();
  const deps = { keys, ...stores, cursors, suffixes };
  return {
    ...stores,
    list: (query: Record<string, string> = {}) => call(createListAssets(deps), apiEvent({ apiKey: ACME, query })),
    update: (assetId: string, body: unknown) =>
      call(createUpdateAsset(deps), apiEvent({ method: 'PATCH', apiKey: ACME, pathParameters: { assetId }, body })),
    add: (body: unknown) => call(createAddAssets(deps), apiEvent({ method: 'POST', apiKey: ACME, body })),
    remove: (assetId: string, body?: unknown) =>
      call(createDeleteAsset(deps), apiEvent({ method: 'DELETE', apiKey: ACME, pathParameters: { assetId }, body })),
  };
};

describe('GET /organization/assets', () => {
  it.each([
    [{ type: 'WEBSITE' }, 'Invalid asset type provided', 'type'],
    [{ per_page: '0' }, 'per_page must be an integer between 1 and 1000', 'per_page'],
    [{ per_page: '1001' }, 'per_page must be an integer between 1 and 1000', 'per_page'],
    [{ per_page: '2.5' }, 'per_page must be an integer between 1 and 1000', 'per_page'],
    [{ groupId: '0' }, 'groupId must be a positive integer or -1', 'groupId'],
    [{ groupId: 'abc' }, 'groupId must be a positive integer or -1', 'groupId'],
    [{ query: 'x'.repeat(257) }, 'query must be at most 256 characters', 'query'],
  ])('returns 400 for %o with "%s"', async (query, message, field) => {
    const response = await endpoints().list(query);

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', message, { issues: [{ message, path: `queryStringParameters.${field}` }] }),
    );
  });

  it('returns 100 assets per page by default, newest first, and a next_page that leads to the rest', async () => {
    const api = endpoints();
    for (let i = 1; i <= 101; i++) await api.givenAsset('acme', { content: `https://a${i}.example`, type: 'URL' });

    const first = (await api.list()).body as { assets: { content: string }[]; next_page: string };
    const second = await api.list({ next_page: first.next_page });

    expect(first.assets).toHaveLength(100);
    expect(first.assets[0]?.content).toBe('https://a101.example');
    expect(first.assets[99]?.content).toBe('https://a2.example');
    expect(second.body).toEqual({
      assets: [expect.objectContaining({ content: 'https://a1.example' })],
      next_page: null,
    });
  });

  it("shows only the caller's organization's assets, with their group", async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Brand');
    const own = await api.givenAsset('acme', { content: 'https://own.example', type: 'URL', groupId: group.id });
    await api.givenAsset('globex', { content: 'https://other.example', type: 'URL' });

    const response = await api.list();

    expect(response.body).toEqual({
      assets: [
        {
          id: own.id,
          content: 'https://own.example',
          type: 'URL',
          status: 'ALLOWED',
          description: null,
          group: { id: group.id, name: 'Brand' },
          createdAt: own.createdAt,
          updatedAt: own.updatedAt,
        },
      ],
      next_page: null,
    });
  });
});

describe('DELETE /organization/assets/{assetId}', () => {
  it('soft-deletes the asset: it leaves the list and a second delete gets 404', async () => {
    const api = endpoints();
    const asset = await api.givenAsset('acme', { content: 'https://gone.example', type: 'URL' });

    const response = await api.remove(String(asset.id), { assetId: asset.id });
    const again = await api.remove(String(asset.id));

    expect(response.body).toEqual({ success: true, id: asset.id });
    expect((await api.list()).body).toEqual({ assets: [], next_page: null });
    expect(again.statusCode).toBe(404);
    expect(again.body).toEqual(errorBody('NOT_FOUND', `Asset with ID ${asset.id} not found`));
  });

  it('returns 400 "Asset ID is required" for a path id that is not a positive integer', async () => {
    const response = await endpoints().remove('abc');

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Asset ID is required', {
        issues: [{ message: 'Asset ID is required', path: 'pathParameters.assetId' }],
      }),
    );
  });

  it('returns 400 and deletes nothing when the body names another asset than the path', async () => {
    const api = endpoints();
    const asset = await api.givenAsset('acme', { content: 'https://kept.example', type: 'URL' });

    const response = await api.remove(String(asset.id), { assetId: asset.id + 1 });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Path parameter assetId does not match body', {
        issues: [{ message: 'Path parameter assetId does not match body', path: 'body.assetId' }],
      }),
    );
    expect(await api.assets.findById(asset.id)).toEqual(asset);
  });

  it('returns 403 for an asset of another organization and leaves it in place', async () => {
    const api = endpoints();
    const asset = await api.givenAsset('globex', { content: 'https://globex.example', type: 'URL' });

    const response = await api.remove(String(asset.id));

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
    expect(await api.assets.findById(asset.id)).toEqual(asset);
  });
});

describe('PATCH /organization/assets/{assetId}', () => {
  it('changes the given fields, moves the asset to the group and returns it as the list shows it', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Brand');
    const asset = await api.givenAsset('acme', { content: 'https://edit.example', type: 'URL' });

    const response = await api.update(String(asset.id), { name: 'Login', groupId: group.id });
    const listed = (await api.list()).body as { assets: unknown[] };

    expect(response.body).toEqual({
      id: asset.id,
      content: 'https://edit.example',
      type: 'URL',
      status: 'ALLOWED',
      name: 'Login',
      description: null,
      group: { id: group.id, name: 'Brand' },
      groupId: group.id,
      createdAt: asset.createdAt,
      updatedAt: expect.any(String),
    });
    const { groupId: _, ...listedShape } = response.body as { groupId: number };
    expect(listed.assets).toEqual([listedShape]);
    expect(await api.groups.list('acme')).toEqual([{ id: group.id, name: 'Brand', assetCount: 1 }]);
  });

  it('returns 400 when the body changes nothing', async () => {
    const response = await endpoints().update('5', {});

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'At least one field (name, description, or groupId) must be provided', {
        issues: [{ message: 'At least one field (name, description, or groupId) must be provided', path: 'body' }],
      }),
    );
  });

  it('answers groupId null, and group null, when the asset leaves its group', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Brand');
    const asset = await api.givenAsset('acme', { content: 'https://leave.example', type: 'URL', groupId: group.id });

    const response = await api.update(String(asset.id), { assetId: asset.id, groupId: null });

    expect(response.body).toMatchObject({ id: asset.id, group: null, groupId: null });
    expect(await api.groups.list('acme')).toEqual([{ id: group.id, name: 'Brand', assetCount: 0 }]);
  });

  it('returns 400 and changes nothing when the body names another asset than the path', async () => {
    const api = endpoints();
    const asset = await api.givenAsset('acme', { content: 'https://same.example', type: 'URL' });

    const response = await api.update(String(asset.id), { assetId: asset.id + 1, name: 'Renamed' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Path parameter assetId does not match body', {
        issues: [{ message: 'Path parameter assetId does not match body', path: 'body.assetId' }],
      }),
    );
    expect(await api.assets.findById(asset.id)).toEqual(asset);
  });

  it('returns 403 for an asset of another organization and changes nothing', async () => {
    const api = endpoints();
    const asset = await api.givenAsset('globex', { content: 'https://globex.example', type: 'URL' });

    const response = await api.update(String(asset.id), { name: 'Hijacked' });

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
    expect(await api.assets.findById(asset.id)).toEqual(asset);
  });

  it("returns 404 for another organization's group and leaves the asset where it was", async () => {
    const api = endpoints();
    const other = await api.groups.create('globex', 'Globex');
    const asset = await api.givenAsset('acme', { content: 'https://mine.example', type: 'URL' });

    const response = await api.update(String(asset.id), { groupId: other.id });

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${other.id} not found`));
    expect(await api.assets.findById(asset.id)).toEqual(asset);
  });
});

describe('POST /organization/assets', () => {
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
    [{ assets: { content: 'https://example.com' } }, 'assets must be an array'],
    [{ asset: [url(1)] }, 'Request body must be an object with an assets array'],
  ])('returns 400 and adds nothing for body %#: "%s"', async (body, message) => {
    const api = endpoints();

    const response = await api.add(body);

    expect(response.statusCode).toBe(400);
    expect(response.body).toMatchObject(errorBody('BAD_REQUEST', message));
    expect((await api.list()).body).toEqual({ assets: [], next_page: null });
  });

  it('returns 404 "Group with ID 999 not found" and adds nothing when the last item names an unknown group', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Websites');

    const response = await api.add({ assets: [{ ...url(1), groupId: group.id }, url(2), { ...url(3), groupId: 999 }] });

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Group with ID 999 not found'));
    expect((await api.list()).body).toEqual({ assets: [], next_page: null });
    expect(await api.groups.list('acme')).toEqual([{ id: group.id, name: 'Websites', assetCount: 0 }]);
  });

  it('answers one result per item in input order, with detected types, invalid formats and duplicates', async () => {
    const api = endpoints();
    await api.givenAsset('acme', { content: 'https://taken.example', type: 'URL' });

    const response = await api.add({
      assets: [
        { content: 'https://example.com' },
        { content: 'not a url at all', type: 'URL' },
        { content: '@ourcompany' },
        { content: 'https://taken.example' },
        { content: 'HTTPS://EXAMPLE.COM/' },
      ],
    });

    const asset = (id: number, content: string, type: string) => ({
      id,
      content,
      type,
      status: 'ALLOWED',
      description: null,
      group: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.body).toEqual({
      results: [
        { content: 'https://example.com', success: true, id: 2, asset: asset(2, 'https://example.com', 'URL') },
        { content: 'not a url at all', success: false, error: 'Invalid asset format' },
        { content: '@ourcompany', success: true, id: 3, asset: asset(3, '@ourcompany', 'TWITTER') },
        { content: 'https://taken.example', success: false, error: 'Asset already exists in organization' },
        { content: 'HTTPS://EXAMPLE.COM/', success: false, error: 'Asset already exists in organization' },
      ],
      successCount: 2,
      errorCount: 3,
    });
  });
});
