import { describe, expect, it } from 'vitest';
import { createHandler as createCreateGroup } from '../../../functions/asset-groups/create.ts';
import { createHandler as createDeleteGroup } from '../../../functions/asset-groups/delete.ts';
import { createHandler as createListGroups } from '../../../functions/asset-groups/list.ts';
import { createHandler as createRenameGroup } from '../../../functions/asset-groups/update.ts';
import type { GroupStore } from '../../../shared/domain/allowlist/groups.ts';
import { ServiceUnavailableError } from '../../../shared/errors.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { fakeKeys, inMemoryStores, orgKey, userKey } from '../../fixtures/fakes.ts';

const KEYS = {
  acme: 'acme-key',
  globex: 'globex-key',
  readOnly: 'acme-read-only-key',
  revoked: 'acme-revoked-key',
  user: 'user-key',
};
const keys = fakeKeys({
  [KEYS.acme]: orgKey('acme'),
  [KEYS.globex]: orgKey('globex'),
  [KEYS.readOnly]: orgKey('acme', ['read']),
  [KEYS.revoked]: orgKey('acme', ['read', 'write'], true),
  [KEYS.user]: userKey('u-1'),
});

/** The four group endpoints over one in-memory organization directory. */
const endpoints = (groups: GroupStore = inMemoryStores().groups) => ({
  groups,
  create: (apiKey: string | null, body: unknown) =>
    call(createCreateGroup({ keys, groups }), apiEvent({ method: 'POST', apiKey, body })),
  list: (apiKey: string | null, headers: Record<string, string> = {}) =>
    call(createListGroups({ keys, groups }), apiEvent({ apiKey, headers })),
  rename: (apiKey: string, groupId: string, body: unknown) =>
    call(createRenameGroup({ keys, groups }), apiEvent({ method: 'PATCH', apiKey, pathParameters: { groupId }, body })),
  remove: (apiKey: string, groupId: string, body?: unknown) =>
    call(
      createDeleteGroup({ keys, groups }),
      apiEvent({ method: 'DELETE', apiKey, pathParameters: { groupId }, body }),
    ),
});

describe('POST /organization/asset-groups', () => {
  it('returns the new group with its name trimmed, and the organization then lists it', async () => {
    const api = endpoints();

    const response = await api.create(KEYS.acme, { name: '  Brand A  ' });
    const listed = await api.list(KEYS.acme);

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ id: expect.any(Number), name: 'Brand A' });
    expect(listed.body).toEqual({ groups: [{ ...(response.body as object), assetCount: 0 }] });
  });

  it('returns 409 CONFLICT when the organization already has a group with that name', async () => {
    const api = endpoints();
    await api.create(KEYS.acme, { name: 'Brand A' });

    const response = await api.create(KEYS.acme, { name: 'Brand A' });

    expect(response.statusCode).toBe(409);
    expect(response.body).toEqual(errorBody('CONFLICT', 'A group with this name already exists'));
  });

  it('returns 400 "Group name is required" when the body has no name', async () => {
    const response = await endpoints().create(KEYS.acme, {});

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Group name is required', {
        issues: [{ message: 'Group name is required', path: 'body.name' }],
      }),
    );
  });

  it('returns 400 when the name is longer than 255 characters', async () => {
    const response = await endpoints().create(KEYS.acme, { name: 'x'.repeat(256) });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Group name must be between 1 and 255 characters', {
        issues: [{ message: 'Group name must be between 1 and 255 characters', path: 'body.name' }],
      }),
    );
  });

  it('accepts a 255-character name of astral characters, counted as code points', async () => {
    const response = await endpoints().create(KEYS.acme, { name: '😀'.repeat(255) });

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ id: expect.any(Number), name: '😀'.repeat(255) });
  });

  it('returns 400 when the body is not JSON, whatever the Content-Type', async () => {
    const response = await endpoints().create(KEYS.acme, '{"name":');

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Request body must be valid JSON'));
  });

  it.each([
    ['the key is missing, before reading the body', null, '{not json'],
    ['the key is unknown', 'no-such-key', { name: 'A' }],
    ['the key is a user key, which has no organization access', KEYS.user, { name: 'A' }],
    ['the key is revoked', KEYS.revoked, { name: 'A' }],
  ])('returns 401 and creates nothing when %s', async (_, apiKey, body) => {
    const api = endpoints();

    const response = await api.create(apiKey, body);

    expect(response.statusCode).toBe(401);
    expect(response.body).toEqual(errorBody('UNAUTHORIZED', 'API key with organization access required'));
    expect(await api.groups.list('acme')).toEqual([]);
  });

  it('returns 403 and creates nothing for a key without the write scope', async () => {
    const api = endpoints();

    const response = await api.create(KEYS.readOnly, { name: 'A' });

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'API key does not have write access'));
    expect(await api.groups.list('acme')).toEqual([]);
  });

  it('returns 500 with a request id and no detail of the failure when the store fails', async () => {
    const failing = inMemoryStores().groups;
    failing.create = async () => {
      throw new Error('ProvisionedThroughputExceededException on table prod-table-xyz');
    };

    const response = await endpoints(failing).create(KEYS.acme, { name: 'A' });

    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual(errorBody('INTERNAL_SERVER_ERROR', 'Internal server error'));
  });
});

describe('GET /organization/asset-groups', () => {
  it("lists every group of the caller's organization with its asset count, empty groups included, in id order", async () => {
    const { groups, assets } = inMemoryStores();
    const api = endpoints(groups);
    for (const name of ['A', 'B', 'C']) await groups.create('acme', name);
    await groups.create('globex', 'Globex only');
    await groups.remove('acme', 2);
    await groups.create('acme', 'D');
    await assets.addMany('acme', [
      { content: 'a.example', type: 'URL', groupId: 1, identity: 'a', checkKey: undefined },
    ]);
    const reordered = { ...groups, list: async (orgId: string) => (await groups.list(orgId)).reverse() };

    const response = await endpoints(reordered).list(KEYS.acme);

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      groups: [
        { id: 1, name: 'A', assetCount: 1 },
        { id: 3, name: 'C', assetCount: 0 },
        { id: 4, name: 'D', assetCount: 0 },
      ],
    });
    expect((await api.list(KEYS.globex)).body).toEqual({ groups: [{ id: 1, name: 'Globex only', assetCount: 0 }] });
  });

  it('accepts the key as Authorization: Bearer and with any header case', async () => {
    const api = endpoints();

    const bearer = await api.list(null, { Authorization: `Bearer ${KEYS.acme}` });
    const mixed = await api.list(null, { 'X-Api-Key': KEYS.acme });

    expect([bearer.statusCode, mixed.statusCode]).toEqual([200, 200]);
    expect([bearer.body, mixed.body]).toEqual([{ groups: [] }, { groups: [] }]);
  });
});

describe('PATCH /organization/asset-groups/{groupId}', () => {
  it('renames the group and returns it', async () => {
    const api = endpoints();
    const { body: group } = (await api.create(KEYS.acme, { name: 'Old' })) as { body: { id: number } };

    const response = await api.rename(KEYS.acme, String(group.id), { name: 'New' });

    expect(response.body).toEqual({ id: group.id, name: 'New' });
    expect((await api.list(KEYS.acme)).body).toEqual({ groups: [{ id: group.id, name: 'New', assetCount: 0 }] });
  });

  it('returns 409 when another group of the organization has the name, and keeps the old one', async () => {
    const api = endpoints();
    const { body: group } = (await api.create(KEYS.acme, { name: 'Old' })) as { body: { id: number } };
    await api.create(KEYS.acme, { name: 'Taken' });

    const response = await api.rename(KEYS.acme, String(group.id), { name: 'Taken' });

    expect(response.statusCode).toBe(409);
    expect(response.body).toEqual(errorBody('CONFLICT', 'A group with this name already exists'));
    expect(await api.groups.list('acme')).toContainEqual({ id: group.id, name: 'Old', assetCount: 0 });
  });

  it("returns 404 for another organization's group and leaves it as it was", async () => {
    const api = endpoints();
    const { body: group } = (await api.create(KEYS.globex, { name: 'Globex' })) as { body: { id: number } };

    const response = await api.rename(KEYS.acme, String(group.id), { name: 'Hijacked' });

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${group.id} not found`));
    expect(await api.groups.list('globex')).toEqual([{ id: group.id, name: 'Globex', assetCount: 0 }]);
  });
});

describe('DELETE /organization/asset-groups/{groupId}', () => {
  it('deletes the group, ungroups its assets and says how many', async () => {
    const { groups, assets } = inMemoryStores();
    const api = endpoints(groups);
    const group = await groups.create('acme', 'Doomed');
    for (const content of ['a.example', 'b.example']) {
      await assets.addMany('acme', [
        { content, type: 'URL', groupId: group.id, identity: content, checkKey: undefined },
      ]);
    }

    const response = await api.remove(KEYS.acme, String(group.id));

    expect(response.body).toEqual({ success: true, id: group.id, unassignedAssetCount: 2 });
    expect((await api.list(KEYS.acme)).body).toEqual({ groups: [] });
  });

  it('returns 404 "Group with ID 4 not found" for a group the organization does not have', async () => {
    const response = await endpoints().remove(KEYS.acme, '4');

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', 'Group with ID 4 not found'));
  });

  it("returns 404 for another organization's group and leaves it in place", async () => {
    const api = endpoints();
    const { body: group } = (await api.create(KEYS.globex, { name: 'Globex' })) as { body: { id: number } };

    const response = await api.remove(KEYS.acme, String(group.id));

    expect(response.statusCode).toBe(404);
    expect(await api.groups.list('globex')).toEqual([{ id: group.id, name: 'Globex', assetCount: 0 }]);
  });

  it.each(['0', 'abc', '-4', '1.5'])('returns 400 "Invalid group ID" for the malformed group id %j', async (id) => {
    const response = await endpoints().remove(KEYS.acme, id);

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Invalid group ID', {
        issues: [{ message: 'Invalid group ID', path: 'pathParameters.groupId' }],
      }),
    );
  });

  it('returns 400 "Group ID is required" for an empty group id', async () => {
    const response = await endpoints().remove(KEYS.acme, '');

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'Group ID is required', {
        issues: [{ message: 'Group ID is required', path: 'pathParameters.groupId' }],
      }),
    );
  });
});

describe('the group id repeated in the body', () => {
  const mismatch = errorBody('BAD_REQUEST', 'Path parameter groupId does not match body', {
    issues: [{ message: 'Path parameter groupId does not match body', path: 'body.groupId' }],
  });

  it('returns 400 and renames nothing when PATCH names another group in the body', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Four');

    const response = await api.rename(KEYS.acme, String(group.id), { groupId: group.id + 1, name: 'Five' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(mismatch);
    expect(await api.groups.list('acme')).toEqual([{ id: group.id, name: 'Four', assetCount: 0 }]);
  });

  it('returns 400 and deletes nothing when DELETE names another group in the body', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Three');

    const response = await api.remove(KEYS.acme, String(group.id), { groupId: 999 });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(mismatch);
    expect(await api.groups.list('acme')).toEqual([{ id: group.id, name: 'Three', assetCount: 0 }]);
  });

  it('renames and deletes when the body repeats the same id', async () => {
    const api = endpoints();
    const group = await api.groups.create('acme', 'Same');

    const renamed = await api.rename(KEYS.acme, String(group.id), { groupId: group.id, name: 'Same 2' });
    const removed = await api.remove(KEYS.acme, String(group.id), { groupId: String(group.id) });

    expect(renamed.body).toEqual({ id: group.id, name: 'Same 2' });
    expect(removed.body).toEqual({ success: true, id: group.id, unassignedAssetCount: 0 });
  });
});

describe('when the table is unavailable', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, as documented', async () => {
    const unavailable: GroupStore = {
      ...inMemoryStores().groups,
      list: async () => {
        throw new ServiceUnavailableError('The data store is unavailable');
      },
    };

    const response = await endpoints(unavailable).list(KEYS.acme);

    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.body).toEqual(errorBody('SERVICE_UNAVAILABLE', 'The data store is unavailable'));
  });
});
