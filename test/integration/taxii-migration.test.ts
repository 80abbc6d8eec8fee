import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { scanPages } from '../../shared/db/batch.ts';
import { migrateTaxiiCollections, type TaxiiMigration } from '../../shared/db/taxii-migration.ts';
import { taxiiRepository } from '../../shared/db/taxii-repository.ts';
import { removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import {
  type CollectionIds,
  type IndicatorVersion,
  listCollections,
  type Maintained,
  objectVersions,
} from '../../shared/domain/taxii/index.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('taxii-migration');
const store = () => taxiiRepository(table.db, table.tableName);
const assets = assetRepository(table.db, table.tableName);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Stored before the TAXII collections existed: these organizations lose every TAXII item below. */
const EARLIER = ['acme', 'globex'];
const GLOBEX_THREATS = 30;

const threat = (organization: string, id: string, content: string, status: string, assetType = 'URL') =>
  applyActivity(suffixes, activityRepository(table.db, table.tableName), {
    organization,
    kind: 'threat',
    id,
    content,
    assetType,
    status,
    watchlisted: false,
    brands: [],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: new Date().toISOString(),
    deleted: false,
  } as never);

/** Every version of a collection, read page by page as the TAXII routes read it. */
const allVersions = async (orgId: string, collection: Maintained): Promise<IndicatorVersion[]> => {
  const read: IndicatorVersion[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store().versions(orgId, collection, after, 7);
    read.push(...page.versions);
    if (!page.more || page.last === undefined) return read;
    after = page.last;
  }
};

/** The entries a collection holds now (their last version not revoked), as a reader compares them. */
const current = async (orgId: string, collection: Maintained) => {
  const versions = await allVersions(orgId, collection);
  const revoked = new Set(versions.filter((one) => one.revoked).map((one) => one.objectId));
  return versions
    .filter((one) => !one.revoked && !revoked.has(one.objectId))
    .map(({ objectId, created, modified, checkKey, assetType }) => ({
      objectId,
      created,
      modified,
      checkKey,
      assetType,
    }))
    .sort((a, b) => a.objectId.localeCompare(b.objectId));
};

/** What the earlier version stored: no item of the organization's TAXII partitions. */
const removeTaxiiItems = async (orgId: string) => {
  const Items: Record<string, unknown>[] = [];
  for await (const page of scanPages(table.db, {
    TableName: table.tableName,
    FilterExpression: 'PK = :ids OR begins_with(PK, :collection)',
    ExpressionAttributeValues: { ':ids': `TAXII#${orgId}`, ':collection': `TAXII#${orgId}#` },
    ConsistentRead: true,
  })) {
    Items.push(...(page.Items ?? []));
  }
  for (let i = 0; i < Items.length; i += 25) {
    await table.db.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: Items.slice(i, i + 25).map((item) => ({
            DeleteRequest: { Key: { PK: item.PK, SK: item.SK } },
          })),
        },
      }),
    );
  }
};

type Entries = Awaited<ReturnType<typeof current>>;
/** What the live write path put in each collection, before the earlier organizations lose it. */
const live: Record<string, Record<Maintained, Entries>> = {};
let keptIds: CollectionIds | undefined;
let first: TaxiiMigration;
const lines: string[] = [];

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme' },
      { slug: 'globex', name: 'Globex' },
      { slug: 'initech', name: 'Initech' },
    ],
    assets: [
      { organization: 'acme', content: 'https://acme.com', type: 'URL', status: 'ALLOWED', name: 'Site' },
      { organization: 'acme', content: 'security@acme.com', type: 'EMAIL', status: 'ALLOWED' },
      { organization: 'acme', content: 'https://acme-old.com', type: 'URL', status: 'ALLOWED' },
      { organization: 'acme', content: 'https://acme-unknown.com', type: 'URL', status: 'UNKNOWN' },
      { organization: 'globex', content: 'https://globex.com', type: 'URL', status: 'ALLOWED' },
    ],
  });
  await threat('acme', 't-1', 'acme-airdrop.xyz', 'BLOCKED');
  // Blocked, then approved later: still the stay that began when it was blocked.
  await threat('acme', 't-2', 'https://acme-claim.xyz/wallet/connect', 'BLOCKED');
  await threat('acme', 't-2', 'https://acme-claim.xyz/wallet/connect', 'APPROVED');
  await threat('acme', 't-3', '0x1234567890abcdef1234567890abcdef12345678', 'AUTO_APPROVED', 'ADDRESS');
  await threat('acme', 't-4', 'acme-gone.xyz', 'BLOCKED');
  await threat('acme', 't-4', 'acme-gone.xyz', 'REJECTED');
  await threat('acme', 't-5', 'acme-pending.xyz', 'PENDING');
  for (let i = 0; i < GLOBEX_THREATS; i++) await threat('globex', `g-${i}`, `globex-drainer-${i}.xyz`, 'BLOCKED');
  // An asset that left the allowlist before: in no collection once migrated.
  const gone = (await assets.list('acme', {}, 100)).assets.find((asset) => asset.content === 'https://acme-old.com');
  if (gone === undefined) throw new Error('seeded asset not listed');
  await removeAsset(assets, 'acme', gone.id);

  for (const orgId of EARLIER) {
    live[orgId] = { blocked: await current(orgId, 'blocked'), allowed: await current(orgId, 'allowed') };
    await removeTaxiiItems(orgId);
  }
  keptIds = await store().collectionIds('initech');
  // Blocked after the deploy and before the migration: the live path has put it in already.
  await threat('acme', 't-6', 'acme-late.xyz', 'BLOCKED');
  first = await migrateTaxiiCollections(table.db, table.tableName, (line) => lines.push(line));
});

describe('migrate taxii: organizations stored before the TAXII collections', () => {
  it('stored data of the earlier version had no collections (the state the migration starts from)', () => {
    // The live path wrote what the earlier organizations lost: their entries, so the comparison below means something.
    expect(live.acme?.blocked).toHaveLength(3);
    expect(live.acme?.allowed).toHaveLength(2);
    expect(live.globex?.blocked).toHaveLength(GLOBEX_THREATS);
    expect(live.globex?.allowed).toHaveLength(1);
  });

  it('gives organizations lacking them three random UUIDv4 collection ids, and keeps those given before', async () => {
    for (const orgId of EARLIER) {
      const ids = await store().collectionIds(orgId);
      expect(ids).toBeDefined();
      const values = Object.values(ids ?? {});
      expect(values).toHaveLength(3);
      for (const id of values) expect(id).toMatch(UUID_V4);
      expect(new Set(values).size).toBe(3);
      const { collections } = await listCollections(store(), { orgId, organizationName: orgId, canWrite: true });
      expect(collections.map((one) => one.title)).toEqual(['blocked', 'allowed', 'submissions']);
    }
    expect(keptIds).toBeDefined();
    expect(await store().collectionIds('initech')).toEqual(keptIds);
  });

  it('puts every blocked threat and allowlist entry in exactly once, with the ids the live path gives', async () => {
    for (const orgId of EARLIER) {
      for (const collection of ['blocked', 'allowed'] as const) {
        const versions = await allVersions(orgId, collection);
        const ids = versions.map((one) => one.objectId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(versions.every((one) => !one.revoked)).toBe(true);
        const late = orgId === 'acme' && collection === 'blocked' ? 1 : 0;
        const entries = await current(orgId, collection);
        expect(entries).toHaveLength((live[orgId]?.[collection].length ?? 0) + late);
        expect(entries).toEqual(expect.arrayContaining(live[orgId]?.[collection] ?? []));
      }
    }
    expect(first).toEqual({
      organizations: 3,
      collectionIdsGiven: 2,
      blockedAdded: 3 + GLOBEX_THREATS,
      allowedAdded: 3,
      alreadyPresent: 1,
    });
    expect(lines).toEqual(
      expect.arrayContaining([
        'acme: collection ids given; blocked 3 added, 1 already present; allowed 2 added, 0 already present',
        `globex: collection ids given; blocked ${GLOBEX_THREATS} added, 0 already present; allowed 1 added, 0 already present`,
        'initech: collection ids kept; blocked 0 added, 0 already present; allowed 0 added, 0 already present',
      ]),
    );
  });

  it('a second run changes nothing', async () => {
    const before = await tableSnapshot(table);
    const answer = await runAdminCommand(table.db, table.tableName, ['migrate', 'taxii'], {});
    expect(await tableSnapshot(table)).toEqual(before);
    expect(answer).toBe(
      `TAXII collections: 3 organizations (0 given collection ids); 0 blocked threats and 0 allowlist entries added, ${
        4 + GLOBEX_THREATS + 3
      } already present`,
    );
  });

  it('a threat and an asset that leave after the migration appear revoked', async () => {
    const [claim] = live.acme?.blocked.filter((one) => one.checkKey.includes('acme-claim')) ?? [];
    const [site] = live.acme?.allowed.filter((one) => one.assetType === 'EMAIL') ?? [];
    if (claim === undefined || site === undefined) throw new Error('live entries missing');
    await threat('acme', 't-2', 'https://acme-claim.xyz/wallet/connect', 'REJECTED');
    const email = (await assets.list('acme', {}, 100)).assets.find((asset) => asset.type === 'EMAIL');
    if (email === undefined) throw new Error('seeded asset not listed');
    await removeAsset(assets, 'acme', email.id);

    const caller = { orgId: 'acme', organizationName: 'Acme', canWrite: false };
    for (const [collection, entry] of [
      ['blocked', claim],
      ['allowed', site],
    ] as const) {
      const served = await objectVersions(store(), caller, collection, entry.objectId);
      expect(served.map((one) => 'revoked' in one.object && one.object.revoked === true)).toEqual([false, true]);
      expect(served.map((one) => one.object.id)).toEqual([entry.objectId, entry.objectId]);
      expect((await current('acme', collection)).map((one) => one.objectId)).not.toContain(entry.objectId);
    }
  });

  it('an organization without collection ids answers 404 until migrated', async () => {
    await seed(table.db, table.tableName, { organizations: [{ slug: 'hooli', name: 'Hooli' }] });
    await removeTaxiiItems('hooli');
    await expect(
      listCollections(store(), { orgId: 'hooli', organizationName: 'Hooli', canWrite: true }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await migrateTaxiiCollections(table.db, table.tableName);
    expect(await store().collectionIds('hooli')).toBeDefined();
  });
});
