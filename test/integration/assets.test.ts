import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler as createListGroups } from '../../functions/asset-groups/list.ts';
import { createHandler as createRenameGroup } from '../../functions/asset-groups/update.ts';
import { createHandler as createDeleteAsset } from '../../functions/assets/delete.ts';
import { createHandler as createUpdateAsset } from '../../functions/assets/update.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('assets');
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const checkIndex = checkIndexRepository(table.db, table.tableName, { ttlMs: 0 });
const deps = { keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)), assets, groups };
const updateAsset = createUpdateAsset(deps);
const deleteAsset = createDeleteAsset(deps);
const renameGroup = createRenameGroup(deps);
const listGroups = createListGroups(deps);

beforeAll(() => seedTwoOrganizations(table.db, table.tableName));

/** Every item of the table, as text, read with strong consistency: what "nothing changed" is measured on. */
const tableState = async (): Promise<string[]> => {
  const items: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({ TableName: table.tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []).map((item) => JSON.stringify(item)));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort();
};

/** Globex's own group holding one of its assets: what acme must not be able to touch. */
const givenGlobexGroupWithAsset = async (label: string) => {
  const group = await groups.create('globex', `Globex ${label}`);
  // Group ids count per organization: acme must not have a group of that id for the attempt to be cross-tenant.
  if ((await groups.list('acme')).some((own) => own.id === group.id)) throw new Error('acme has this group id');
  const added = await addAssets(suffixes, assets, groups, 'globex', [
    { content: `https://globex-${label}.example`, type: 'URL', groupId: group.id },
  ]);
  const [asset] = await Promise.all(added.results.map((result) => assets.findById(result.success ? result.id : 0)));
  if (!asset) throw new Error('the Globex asset was not stored');
  return { group, asset };
};

const patchAsset = (apiKey: string, assetId: number, body: unknown) =>
  call(updateAsset, apiEvent({ method: 'PATCH', apiKey, pathParameters: { assetId: String(assetId) }, body }));

describe("another organization's assets and groups on DynamoDB Local", () => {
  it.each([
    ['renaming', { name: 'Hijacked' }],
    ['describing', { description: 'Hijacked' }],
    ['ungrouping', { groupId: null }],
  ])("refuses %s another organization's asset with 403 and changes nothing", async (_, body) => {
    const { asset } = await givenGlobexGroupWithAsset(`edit-${Object.keys(body)[0]}`);
    const before = await tableState();

    const response = await patchAsset(ACME_KEY, asset.id, body);

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
    expect(await tableState()).toEqual(before);
  });

  it("refuses to move another organization's asset into one's own group with 403 and changes nothing", async () => {
    const { asset } = await givenGlobexGroupWithAsset('move-in');
    const own = await groups.create('acme', 'Acme move-in');
    const before = await tableState();

    const response = await patchAsset(ACME_KEY, asset.id, { groupId: own.id });

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
    expect(await tableState()).toEqual(before);
  });

  it("refuses to assign one's own asset to another organization's group with 404 and changes nothing", async () => {
    const { group } = await givenGlobexGroupWithAsset('assign');
    const added = await addAssets(suffixes, assets, groups, 'acme', [
      { content: 'https://acme-assign.example', type: 'URL' },
    ]);
    const ownAsset = added.results[0]?.success ? added.results[0].id : 0;
    const before = await tableState();

    const response = await patchAsset(ACME_KEY, ownAsset, { groupId: group.id });

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${group.id} not found`));
    expect(await tableState()).toEqual(before);
  });

  it("refuses to delete another organization's asset with 403 and leaves it live", async () => {
    const { asset } = await givenGlobexGroupWithAsset('delete-asset');
    const before = await tableState();

    const response = await call(
      deleteAsset,
      apiEvent({ method: 'DELETE', apiKey: ACME_KEY, pathParameters: { assetId: String(asset.id) } }),
    );

    expect(response.statusCode).toBe(403);
    expect(response.body).toEqual(errorBody('FORBIDDEN', 'Asset does not belong to your organization'));
    expect(await tableState()).toEqual(before);
    expect(await assets.findById(asset.id)).toEqual(asset);
  });

  it("refuses to rename another organization's group with 404 and changes nothing", async () => {
    const { group } = await givenGlobexGroupWithAsset('rename-group');
    const before = await tableState();

    const response = await call(
      renameGroup,
      apiEvent({
        method: 'PATCH',
        apiKey: ACME_KEY,
        pathParameters: { groupId: String(group.id) },
        body: { name: 'Hijacked' },
      }),
    );
    const globexGroups = await call(listGroups, apiEvent({ apiKey: GLOBEX_KEY }));

    expect(response.statusCode).toBe(404);
    expect(response.body).toEqual(errorBody('NOT_FOUND', `Group with ID ${group.id} not found`));
    expect(await tableState()).toEqual(before);
    expect(globexGroups.body).toMatchObject({ groups: expect.arrayContaining([{ ...group, assetCount: 1 }]) });
  });
});

/** The live assets of an organization with this content, and the allowlisting count of its check-index entry. */
const stateOf = async (orgId: string, content: string) => {
  const live: number[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        ConsistentRead: true,
        FilterExpression: 'entity = :asset AND orgId = :org AND content = :content AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':asset': 'ASSET', ':org': orgId, ':content': content },
        ExclusiveStartKey,
      }),
    );
    live.push(...(page.Items ?? []).map((item) => item.id as number));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const [entry] = await checkIndex.lookup([entryKeyOf(suffixes, content, 'URL') as string]);
  return { live: live.length, allow: entry?.allow ?? 0 };
};

const add = (orgId: string, ...contents: string[]) =>
  addAssets(
    suffixes,
    assets,
    groups,
    orgId,
    contents.map((content) => ({ content, type: 'URL' as const })),
  );

describe('adding the same content on DynamoDB Local', () => {
  it('keeps one live asset, counted once in the check index, when the same content is added twice', async () => {
    await add('dup-twice', 'https://twice.example');

    await add('dup-twice', 'https://twice.example');

    expect(await stateOf('dup-twice', 'https://twice.example')).toEqual({ live: 1, allow: 1 });
  });

  it('keeps one live asset when one request holds the same content twice', async () => {
    await add('dup-one-request', 'https://one-request.example', 'https://one-request.example');

    expect(await stateOf('dup-one-request', 'https://one-request.example')).toEqual({ live: 1, allow: 1 });
  });

  it('keeps one live asset, counted once, when 20 requests add the same content concurrently', async () => {
    await Promise.all(Array.from({ length: 20 }, () => add('dup-concurrent', 'https://concurrent.example')));

    expect(await stateOf('dup-concurrent', 'https://concurrent.example')).toEqual({ live: 1, allow: 1 });
  });

  it('adds the content again as a new live asset after the first was deleted, counted once', async () => {
    const first = await add('dup-after-delete', 'https://again.example');
    const firstId = first.results[0]?.success ? first.results[0].id : 0;
    await removeAsset(assets, 'dup-after-delete', firstId);

    await add('dup-after-delete', 'https://again.example');

    expect(await stateOf('dup-after-delete', 'https://again.example')).toEqual({ live: 1, allow: 1 });
    expect(await assets.findById(firstId)).toBeUndefined();
  });

  it('keeps one live asset per organization when two organizations add the same content', async () => {
    await Promise.all([add('dup-org-a', 'https://shared.example'), add('dup-org-b', 'https://shared.example')]);

    expect(await stateOf('dup-org-a', 'https://shared.example')).toEqual({ live: 1, allow: 2 });
    expect(await stateOf('dup-org-b', 'https://shared.example')).toEqual({ live: 1, allow: 2 });
  });
});
