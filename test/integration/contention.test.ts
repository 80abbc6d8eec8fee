import { beforeAll, describe, expect, it } from 'vitest';
import { apiEvent, call, errorBody, type Response } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('contention');
const { handler: createGroup } = await import('../../functions/asset-groups/create.ts');
const { handler: listGroups } = await import('../../functions/asset-groups/list.ts');
const { handler: deleteGroup } = await import('../../functions/asset-groups/delete.ts');
const { handler: createAssets } = await import('../../functions/assets/create.ts');
const { handler: listAssets } = await import('../../functions/assets/list.ts');
const { handler: deleteAsset } = await import('../../functions/assets/delete.ts');

beforeAll(() => seedTwoOrganizations(table.db, table.tableName));

const statusesOf = (responses: Response[]) => responses.map((response) => response.statusCode);
const timed = async (request: () => Promise<Response>): Promise<Response & { ms: number }> => {
  const start = performance.now();
  const response = await request();
  return { ...response, ms: performance.now() - start };
};
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

const createGroupNamed = (apiKey: string, name: string) =>
  call(createGroup, apiEvent({ method: 'POST', apiKey, body: { name } }));
const addAssets = async (apiKey: string, prefix: string, count: number, groupId: number | null) => {
  const assets = Array.from({ length: count }, (_, i) => ({
    content: `https://${prefix}-${i}.example`,
    type: 'URL',
    groupId,
  }));
  const response = await call(createAssets, apiEvent({ method: 'POST', apiKey, body: { assets } }));
  const { results } = response.body as { results: { success: boolean; id: number }[] };
  expect(results.every((result) => result.success)).toBe(true);
  return results.map((result) => result.id);
};

describe('one organization driving one item hard, on DynamoDB Local', () => {
  it('gives each of 200 concurrent group creates of different names its own id, with no 5xx', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => timed(() => createGroupNamed(ACME_KEY, `Burst ${i}`))),
    );

    const ids = responses.map((response) => (response.body as { id: number }).id);
    console.info(
      `200 concurrent group creates: p50 ${percentile(
        responses.map((r) => r.ms),
        50,
      ).toFixed(0)} ms, p99 ${percentile(
        responses.map((r) => r.ms),
        99,
      ).toFixed(0)} ms, highest id ${Math.max(...ids)}`,
    );
    expect(statusesOf(responses)).toEqual(Array(200).fill(200));
    expect(new Set(ids).size).toBe(200);
    const listed = (await call(listGroups, apiEvent({ apiKey: ACME_KEY }))).body as { groups: { id: number }[] };
    expect(listed.groups.map((group) => group.id).sort()).toEqual([...ids].sort());
  });

  it('answers one of 20 concurrent deletes of one asset with 200 and the other 19 with 404', async () => {
    const [id] = (await addAssets(GLOBEX_KEY, 'deleted-twenty-times', 1, null)) as [number];

    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(deleteAsset, apiEvent({ method: 'DELETE', apiKey: GLOBEX_KEY, pathParameters: { assetId: String(id) } })),
      ),
    );

    expect(statusesOf(responses).sort()).toEqual([200, ...Array(19).fill(404)]);
    expect(responses.find((response) => response.statusCode === 200)?.body).toEqual({ success: true, id });
    for (const response of responses.filter((r) => r.statusCode === 404)) {
      expect(response.body).toEqual(errorBody('NOT_FOUND', `Asset with ID ${id} not found`));
    }
  });

  it('answers one of 20 concurrent deletes of a group holding assets with 200 and the other 19 with 404; its assets end ungrouped', async () => {
    const { body: group } = (await createGroupNamed(GLOBEX_KEY, 'Deleted twenty times')) as { body: { id: number } };
    const { body: kept } = (await createGroupNamed(GLOBEX_KEY, 'Kept beside it')) as { body: { id: number } };
    await addAssets(GLOBEX_KEY, 'in-doomed-group', 12, group.id);
    await addAssets(GLOBEX_KEY, 'in-kept-group', 3, kept.id);

    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(
          deleteGroup,
          apiEvent({ method: 'DELETE', apiKey: GLOBEX_KEY, pathParameters: { groupId: String(group.id) } }),
        ),
      ),
    );
    const ungrouped = (
      await call(
        listAssets,
        apiEvent({ apiKey: GLOBEX_KEY, query: { groupId: '-1', query: 'in-doomed-group', per_page: '100' } }),
      )
    ).body as { assets: { group: unknown }[] };
    const groups = (await call(listGroups, apiEvent({ apiKey: GLOBEX_KEY }))).body as {
      groups: { id: number; assetCount: number }[];
    };

    expect(statusesOf(responses).sort()).toEqual([200, ...Array(19).fill(404)]);
    expect(responses.find((response) => response.statusCode === 200)?.body).toEqual({
      success: true,
      id: group.id,
      unassignedAssetCount: 12,
    });
    for (const response of responses.filter((r) => r.statusCode === 404)) {
      expect(response.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${group.id} not found`));
    }
    expect(ungrouped.assets).toHaveLength(12);
    expect(ungrouped.assets.every((asset) => asset.group === null)).toBe(true);
    expect(groups.groups.map((g) => g.id)).not.toContain(group.id);
    expect(groups.groups).toContainEqual(expect.objectContaining({ id: kept.id, assetCount: 3 }));
  });
});
