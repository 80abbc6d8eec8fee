import { describe, expect, it } from 'vitest';
import {
  type Asset,
  type AssetStore,
  assetIdentity,
  type NewAsset,
  type PreparedAsset,
} from '../../shared/domain/allowlist/assets.ts';
import type { GroupStore } from '../../shared/domain/allowlist/groups.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../shared/errors.ts';
import { suffixes } from '../fixtures/suffixes.ts';

/** One organization's view of a group store and an asset store that share their data, as the service's do. */
export type Stores = { groups: GroupStore; assets: AssetStore; orgId: string; otherOrgId: string };

/** An asset as the domain hands it to the store: its identity and check-index key worked out. */
const prepared = (input: NewAsset): PreparedAsset => ({
  ...input,
  identity: assetIdentity(suffixes, input.content, input.type),
  checkKey: (input.status ?? 'ALLOWED') === 'ALLOWED' ? entryKeyOf(suffixes, input.content, input.type) : undefined,
});

const domain = (name: string, extra: Partial<NewAsset> = {}): NewAsset => ({
  content: `${name}.example`,
  type: 'URL',
  ...extra,
});

const add = async (stores: Stores, inputs: NewAsset[], orgId = stores.orgId): Promise<Asset[]> => {
  const outcomes = await stores.assets.addMany(orgId, inputs.map(prepared));
  return outcomes.map((outcome) => {
    if (!('created' in outcome)) throw new Error(`not added: ${outcome.failed}`);
    return outcome.created;
  });
};

const countOf = async (stores: Stores, id: number) =>
  (await stores.groups.list(stores.orgId)).find((group) => group.id === id)?.assetCount;

const walk = async (stores: Stores, filter: Parameters<AssetStore['list']>[1], limit: number) => {
  const seen: Asset[] = [];
  let position: string | undefined;
  do {
    const page = await stores.assets.list(stores.orgId, filter, limit, position);
    seen.push(...page.assets);
    position = page.position;
  } while (position !== undefined);
  return seen;
};

/**
 * What the domain relies on from `GroupStore` and `AssetStore`, whatever holds the data. `make`
 * gives stores with no data for `orgId` and `otherOrgId`.
 */
export const storesContract = (make: () => Promise<Stores>) => {
  describe('GroupStore', () => {
    it('numbers an organization’s groups from 1 and lists them with no assets', async () => {
      const stores = await make();

      const created = [await stores.groups.create(stores.orgId, 'A'), await stores.groups.create(stores.orgId, 'B')];
      const other = await stores.groups.create(stores.otherOrgId, 'A');

      expect(created).toEqual([
        { id: 1, name: 'A', assetCount: 0 },
        { id: 2, name: 'B', assetCount: 0 },
      ]);
      expect(other.id).toBe(1);
      expect((await stores.groups.list(stores.orgId)).sort((a, b) => a.id - b.id)).toEqual(created);
    });

    it('refuses a name the organization already has with ConflictError; another organization may use it', async () => {
      const stores = await make();
      await stores.groups.create(stores.orgId, 'Brand');

      await expect(stores.groups.create(stores.orgId, 'Brand')).rejects.toThrow(ConflictError);
      await expect(stores.groups.create(stores.otherOrgId, 'Brand')).resolves.toMatchObject({ name: 'Brand' });
    });

    it('never gives a new group the id of a deleted one', async () => {
      const stores = await make();
      await stores.groups.create(stores.orgId, 'First');
      const second = await stores.groups.create(stores.orgId, 'Second');
      await stores.groups.remove(stores.orgId, second.id);

      const third = await stores.groups.create(stores.orgId, 'Third');

      expect(third.id).toBe(3);
    });

    it('renames a group, to its own name too, and refuses another group’s name with ConflictError', async () => {
      const stores = await make();
      const a = await stores.groups.create(stores.orgId, 'A');
      await stores.groups.create(stores.orgId, 'B');

      const renamed = await stores.groups.rename(stores.orgId, a.id, 'C');
      const same = await stores.groups.rename(stores.orgId, a.id, 'C');

      expect([renamed, same]).toEqual([
        { id: a.id, name: 'C', assetCount: 0 },
        { id: a.id, name: 'C', assetCount: 0 },
      ]);
      await expect(stores.groups.rename(stores.orgId, a.id, 'B')).rejects.toThrow(ConflictError);
      await expect(stores.groups.create(stores.orgId, 'A')).resolves.toMatchObject({ name: 'A' });
    });

    it('answers NotFoundError when renaming a group the organization does not have', async () => {
      const stores = await make();
      const theirs = await stores.groups.create(stores.otherOrgId, 'Theirs');

      await expect(stores.groups.rename(stores.orgId, theirs.id, 'Mine')).rejects.toThrow(NotFoundError);
    });

    it('removes a group: returns how many assets it held, which are left ungrouped', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Doomed');
      const assets = await add(stores, [domain('a', { groupId: group.id }), domain('b', { groupId: group.id })]);

      const unassigned = await stores.groups.remove(stores.orgId, group.id);

      expect(unassigned).toBe(2);
      expect(await stores.groups.list(stores.orgId)).toEqual([]);
      await expect(stores.groups.create(stores.orgId, 'Doomed')).resolves.toMatchObject({ name: 'Doomed' });
      for (const asset of assets) expect((await stores.assets.findById(asset.id))?.groupId).toBeNull();
      expect((await walk(stores, { groupId: 'ungrouped' }, 10)).map((a) => a.id).sort()).toEqual(
        assets.map((a) => a.id).sort(),
      );
    });

    it('removes a group without assets, answering 0 and leaving nothing to resume for it', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Empty');

      const unassigned = await stores.groups.remove(stores.orgId, group.id);

      expect(unassigned).toBe(0);
      expect(await stores.groups.list(stores.orgId)).toEqual([]);
      await expect(stores.groups.remove(stores.orgId, group.id)).rejects.toThrow(NotFoundError);
    });

    it('leaves no removal to resume once a remove has answered', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Finished');
      await add(stores, [domain('f1', { groupId: group.id }), domain('f2', { groupId: group.id })]);
      await stores.groups.remove(stores.orgId, group.id);

      expect(await stores.groups.resumeRemovals(Date.now() + 5_000)).toEqual({ finished: 0, unfinished: 0 });
    });

    it('answers NotFoundError for a group already removed, or never created', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Once');
      await stores.groups.remove(stores.orgId, group.id);

      await expect(stores.groups.remove(stores.orgId, group.id)).rejects.toThrow(NotFoundError);
      await expect(stores.groups.remove(stores.orgId, 99)).rejects.toThrow(NotFoundError);
    });

    it('lets exactly one of two concurrent removes of a group succeed; the other answers NotFoundError', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Raced');
      await add(stores, [domain('raced', { groupId: group.id })]);

      const outcomes = await Promise.allSettled([
        stores.groups.remove(stores.orgId, group.id),
        stores.groups.remove(stores.orgId, group.id),
      ]);

      expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual([1]);
      const [rejected] = outcomes.filter((o) => o.status === 'rejected');
      expect(rejected?.reason).toBeInstanceOf(NotFoundError);
    });

    it('names the organization’s groups among the ids asked, and no other', async () => {
      const stores = await make();
      const a = await stores.groups.create(stores.orgId, 'A');
      const b = await stores.groups.create(stores.orgId, 'B');
      const theirs = await stores.groups.create(stores.otherOrgId, 'Theirs');
      await stores.groups.create(stores.otherOrgId, 'Theirs too');

      const names = await stores.groups.namesOf(stores.orgId, [a.id, b.id, 77]);
      const otherNames = await stores.groups.namesOf(stores.otherOrgId, [theirs.id, 5]);

      expect([...names].sort()).toEqual([
        [a.id, 'A'],
        [b.id, 'B'],
      ]);
      expect([...otherNames]).toEqual([[theirs.id, 'Theirs']]);
    });
  });

  describe('AssetStore', () => {
    it('stores new assets in input order, each found by its id as it was created', async () => {
      const stores = await make();

      const created = await add(stores, [
        domain('one', { name: 'One', description: 'first' }),
        { content: '@acme_support', type: 'TWITTER', status: 'BLOCKED' },
      ]);

      expect(
        created.map(({ content, type, status, name, description, groupId, orgId }) => ({
          content,
          type,
          status,
          name,
          description,
          groupId,
          orgId,
        })),
      ).toEqual([
        {
          content: 'one.example',
          type: 'URL',
          status: 'ALLOWED',
          name: 'One',
          description: 'first',
          groupId: null,
          orgId: stores.orgId,
        },
        {
          content: '@acme_support',
          type: 'TWITTER',
          status: 'BLOCKED',
          name: undefined,
          description: null,
          groupId: null,
          orgId: stores.orgId,
        },
      ]);
      expect(new Set(created.map((asset) => asset.id)).size).toBe(2);
      for (const asset of created) expect(await stores.assets.findById(asset.id)).toEqual(asset);
    });

    it('refuses an identity the organization already holds (also spelled otherwise); another organization may add it', async () => {
      const stores = await make();
      await add(stores, [domain('held')]);

      const again = await stores.assets.addMany(stores.orgId, [prepared({ content: 'HELD.example', type: 'URL' })]);
      const theirs = await stores.assets.addMany(stores.otherOrgId, [prepared(domain('held'))]);

      expect(again).toEqual([{ failed: 'exists' }]);
      expect(theirs[0]).toHaveProperty('created');
    });

    it('counts added assets in their group', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'G');

      await add(stores, [domain('g1', { groupId: group.id }), domain('g2', { groupId: group.id }), domain('loose')]);

      expect(await countOf(stores, group.id)).toBe(2);
    });

    it('refuses an asset whose group does not exist as group-gone, and stores nothing of it', async () => {
      const stores = await make();

      const outcomes = await stores.assets.addMany(stores.orgId, [prepared(domain('orphan', { groupId: 42 }))]);

      expect(outcomes).toEqual([{ failed: 'group-gone' }]);
      expect(await walk(stores, {}, 10)).toEqual([]);
      expect(await add(stores, [domain('orphan')])).toHaveLength(1);
    });

    it('updates name and description and moves an asset between groups, the counts following', async () => {
      const stores = await make();
      const from = await stores.groups.create(stores.orgId, 'From');
      const to = await stores.groups.create(stores.orgId, 'To');
      const [asset] = (await add(stores, [domain('moving', { groupId: from.id })])) as [Asset];

      const updated = await stores.assets.update(asset, { name: 'Moved', description: 'now in To', groupId: to.id });

      expect(updated).toMatchObject({ id: asset.id, name: 'Moved', description: 'now in To', groupId: to.id });
      expect(await stores.assets.findById(asset.id)).toMatchObject({ name: 'Moved', groupId: to.id });
      expect([await countOf(stores, from.id), await countOf(stores, to.id)]).toEqual([0, 1]);
    });

    it('answers NotFoundError for a move into a group that does not exist, and leaves the asset as it was', async () => {
      const stores = await make();
      const [asset] = (await add(stores, [domain('stays')])) as [Asset];

      await expect(stores.assets.update(asset, { groupId: 42 })).rejects.toThrow(NotFoundError);
      expect(await stores.assets.findById(asset.id)).toEqual(asset);
    });

    it('deletes an asset: it is not found, its group counts it no more, and its identity is free again', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'G');
      const [asset] = (await add(stores, [domain('gone', { groupId: group.id })])) as [Asset];

      await stores.assets.softDelete(asset);

      expect(await stores.assets.findById(asset.id)).toBeUndefined();
      expect(await countOf(stores, group.id)).toBe(0);
      const [again] = await add(stores, [domain('gone')]);
      expect(again?.id).not.toBe(asset.id);
    });

    it('answers NotFoundError for a deleted asset’s delete or update', async () => {
      const stores = await make();
      const [asset] = (await add(stores, [domain('twice')])) as [Asset];
      await stores.assets.softDelete(asset);

      await expect(stores.assets.softDelete(asset)).rejects.toThrow(NotFoundError);
      await expect(stores.assets.update(asset, { name: 'x' })).rejects.toThrow(NotFoundError);
    });

    it('lists newest first, every asset once over pages of any size, and only the organization’s', async () => {
      const stores = await make();
      const created = await add(
        stores,
        Array.from({ length: 7 }, (_, i) => domain(`page${i}`, { createdAt: `2026-01-0${i + 1}T00:00:00.000Z` })),
      );
      await add(stores, [domain('theirs')], stores.otherOrgId);

      const pages = await Promise.all([1, 3, 7, 10].map((limit) => walk(stores, {}, limit)));

      const newestFirst = [...created].reverse().map((asset) => asset.id);
      for (const listed of pages) expect(listed.map((asset) => asset.id)).toEqual(newestFirst);
    });

    it('filters by type, group, ungrouped and a query matched in any case', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'G');
      const [grouped, loose, handle] = (await add(stores, [
        domain('grouped', { groupId: group.id, createdAt: '2026-01-01T00:00:00.000Z' }),
        domain('loose', { name: 'Support Desk', createdAt: '2026-01-02T00:00:00.000Z' }),
        { content: '@acme_desk', type: 'TWITTER', createdAt: '2026-01-03T00:00:00.000Z' },
      ])) as [Asset, Asset, Asset];
      const ids = async (filter: Parameters<AssetStore['list']>[1]) =>
        (await walk(stores, filter, 10)).map((asset) => asset.id);

      expect(await ids({ type: 'TWITTER' })).toEqual([handle.id]);
      expect(await ids({ groupId: group.id })).toEqual([grouped.id]);
      expect(await ids({ groupId: 'ungrouped' })).toEqual([handle.id, loose.id]);
      expect(await ids({ query: 'desk' })).toEqual([handle.id, loose.id]);
      expect(await ids({ query: 'SUPPORT' })).toEqual([loose.id]);
      expect(await ids({ type: 'URL', query: 'desk' })).toEqual([loose.id]);
    });

    it('lists nothing for a group that was removed', async () => {
      const stores = await make();
      const group = await stores.groups.create(stores.orgId, 'Removed');
      await add(stores, [domain('was-in', { groupId: group.id })]);
      await stores.groups.remove(stores.orgId, group.id);

      expect(await walk(stores, { groupId: group.id }, 10)).toEqual([]);
    });

    it('refuses a position it did not issue with BadRequestError', async () => {
      const stores = await make();
      await add(stores, [domain('p1'), domain('p2')]);

      await expect(stores.assets.list(stores.orgId, {}, 1, 'not-a-position')).rejects.toThrow(BadRequestError);
    });
  });
};
