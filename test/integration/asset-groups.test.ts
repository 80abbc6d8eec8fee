import { beforeAll, describe, expect, it } from 'vitest';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seed, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('groups');
const { handler: createGroup } = await import('../../functions/asset-groups/create.ts');
const { handler: listGroups } = await import('../../functions/asset-groups/list.ts');
const { handler: renameGroup } = await import('../../functions/asset-groups/update.ts');
const { handler: deleteGroup } = await import('../../functions/asset-groups/delete.ts');
const { handler: createAssets } = await import('../../functions/assets/create.ts');
const { handler: listAssets } = await import('../../functions/assets/list.ts');

const ACME = ACME_KEY;
const GLOBEX = GLOBEX_KEY;
/** An organization no other test creates groups in, so its ids are known. */
const INITECH = 'initech-key-0123456789abcdef';

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'initech', name: 'Initech' }],
    apiKeys: [{ key: INITECH, organization: 'initech' }],
  });
});

const create = async (apiKey: string, name: string) =>
  await call(createGroup, apiEvent({ method: 'POST', apiKey, body: { name } }));
const list = async (apiKey: string) =>
  (await call(listGroups, apiEvent({ apiKey }))).body as {
    groups: { id: number; name: string; assetCount: number }[];
  };

describe('asset groups on DynamoDB Local', () => {
  it('lets exactly one of 50 concurrent creates of one name succeed; the other 49 get 409', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => create(ACME, 'Race')));

    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
    expect((await list(ACME)).groups.filter((group) => group.name === 'Race')).toHaveLength(1);
  });

  it('issues no id to a create refused with 409: the next group gets the next id', async () => {
    const first = await create(INITECH, 'A');
    const again = await create(INITECH, 'A');
    const next = await create(INITECH, 'B');

    expect(first.body).toEqual({ id: 1, name: 'A' });
    expect(again.statusCode).toBe(409);
    expect(next.body).toEqual({ id: 2, name: 'B' });
  });

  it('gives each of 30 concurrent creates of different names its own id', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => create(GLOBEX, `Parallel ${i}`)));

    const ids = responses.map((response) => (response.body as { id: number }).id);
    expect(responses.map((response) => response.statusCode)).toEqual(Array(30).fill(200));
    expect(new Set(ids).size).toBe(30);
  });

  it('compares names case-sensitively and scopes them to the organization', async () => {
    const first = await create(ACME, 'Mixed');
    const otherCase = await create(ACME, 'mixed');
    const otherOrg = await create(GLOBEX, 'Mixed');

    expect([first.statusCode, otherCase.statusCode, otherOrg.statusCode]).toEqual([200, 200, 200]);
  });

  it('renames a group, frees the old name, and refuses a name another group has', async () => {
    const { body: a } = (await create(ACME, 'Old name')) as { body: { id: number } };
    await create(ACME, 'Taken');

    const rename = (name: string) =>
      call(
        renameGroup,
        apiEvent({ method: 'PATCH', apiKey: ACME, pathParameters: { groupId: String(a.id) }, body: { name } }),
      );
    const renamed = await rename('New name');
    const clash = await rename('Taken');
    const reuse = await create(ACME, 'Old name');

    expect(renamed.body).toEqual({ id: a.id, name: 'New name' });
    expect(clash.statusCode).toBe(409);
    expect(clash.body).toEqual(errorBody('CONFLICT', 'A group with this name already exists'));
    expect(reuse.statusCode).toBe(200);
  });

  it("does not let one organization see or delete another organization's group, which keeps its assets", async () => {
    const { body: group } = (await create(GLOBEX, 'Private')) as { body: { id: number } };
    await call(
      createAssets,
      apiEvent({
        method: 'POST',
        apiKey: GLOBEX,
        body: { assets: [{ content: 'https://private.example', type: 'URL', groupId: group.id }] },
      }),
    );

    const acmeIds = (await list(ACME)).groups.map((g) => g.id);
    const removal = await call(
      deleteGroup,
      apiEvent({ method: 'DELETE', apiKey: ACME, pathParameters: { groupId: String(group.id) } }),
    );
    const privateAssets = await call(
      listAssets,
      apiEvent({ apiKey: GLOBEX, query: { groupId: String(group.id), query: 'private.example' } }),
    );

    expect(acmeIds).not.toContain(group.id);
    expect(removal.statusCode).toBe(404);
    expect(removal.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${group.id} not found`));
    expect((await list(GLOBEX)).groups).toContainEqual({ id: group.id, name: 'Private', assetCount: 1 });
    expect(privateAssets.body).toMatchObject({
      assets: [{ content: 'https://private.example', group: { id: group.id, name: 'Private' } }],
    });
  });

  it('deleting a group ungroups its assets and reports how many', async () => {
    const { body: group } = (await create(ACME, 'Doomed')) as { body: { id: number } };
    const assets = Array.from({ length: 5 }, (_, i) => ({
      content: `https://doomed-${i}.example`,
      type: 'URL',
      groupId: group.id,
    }));
    await call(createAssets, apiEvent({ method: 'POST', apiKey: ACME, body: { assets } }));

    const removal = await call(
      deleteGroup,
      apiEvent({ method: 'DELETE', apiKey: ACME, pathParameters: { groupId: String(group.id) } }),
    );
    const ungrouped = (
      await call(listAssets, apiEvent({ apiKey: ACME, query: { groupId: '-1', query: 'doomed-', per_page: '100' } }))
    ).body as { assets: { group: unknown }[] };

    expect(removal.body).toEqual({ success: true, id: group.id, unassignedAssetCount: 5 });
    expect(ungrouped.assets).toHaveLength(5);
    expect(ungrouped.assets.every((asset) => asset.group === null)).toBe(true);
    expect((await list(ACME)).groups.map((g) => g.id)).not.toContain(group.id);
  });
});
