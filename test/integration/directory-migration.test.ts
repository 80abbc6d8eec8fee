import { readFileSync } from 'node:fs';
import { DeleteCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, type TestTable, tableSnapshot } from '../fixtures/table.ts';

const demo = JSON.parse(readFileSync('infra/local/demo.json', 'utf8'));

const directoryItems = async ({ db, tableName }: TestTable) => {
  const { Items = [] } = await db.send(
    new ScanCommand({
      TableName: tableName,
      ConsistentRead: true,
      FilterExpression: 'entity IN (:organization, :brand)',
      ExpressionAttributeValues: { ':organization': 'ORGANIZATION', ':brand': 'BRAND' },
    }),
  );
  return Items;
};

/** Puts every organization and brand item back where the first layout kept them: `ORG#<id>`, the same sort key. */
const toOldLayout = async (table: TestTable) => {
  for (const item of await directoryItems(table)) {
    const orgId = (item.PK as string).slice('ORGANIZATION#'.length);
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...item, PK: `ORG#${orgId}` } }));
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: { PK: item.PK, SK: item.SK } }));
  }
};

const migrate = async (table: TestTable) => {
  const progress: string[] = [];
  const message = await runAdminCommand(table.db, table.tableName, ['migrate'], {}, (line) => progress.push(line));
  return { message, progress };
};

describe('npm run admin -- migrate', () => {
  let table: TestTable;
  let seeded: string[];
  beforeAll(async () => {
    table = await createTestTable('migrate');
    await seed(table.db, table.tableName, demo);
    seeded = await tableSnapshot(table);
    await toOldLayout(table);
  });

  it('moves the organizations and brands of the old layout to their own partitions, leaving every other item as it was', async () => {
    const before = await directoryItems(table);

    const { message, progress } = await migrate(table);

    const moved = before.length;
    expect(before.every((item) => (item.PK as string).startsWith('ORG#'))).toBe(true);
    expect(moved).toBe(5); // acme, globex and their three brands
    expect(message).toMatch(new RegExp(`^Organizations and brands: ${moved} moved, 0 copied by an earlier run`));
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress[0]).toMatch(/^segment \d\/4: \d+ items scanned/);
    expect(await tableSnapshot(table)).toEqual(seeded);
  });

  it('lets the readers find the organization, its feature flags and its brands afterwards', async () => {
    const directory = directoryRepository(table.db, table.tableName);

    const organization = await directory.findOrganization('acme');
    const brands = await directory.listBrands('acme');
    const references = await activityRepository(table.db, table.tableName).knownReferences('acme', [
      'acme-wallet',
      'acme-exchange',
      'globex-pay',
    ]);

    expect(organization).toEqual({ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] });
    expect(brands.map((brand) => brand.slug).sort()).toEqual(['acme-exchange', 'acme-wallet']);
    expect(references).toEqual({ organization: true, brands: new Set(['acme-wallet', 'acme-exchange']) });
  });

  it('changes nothing when run a second time', async () => {
    const before = await tableSnapshot(table);

    const { message } = await migrate(table);

    expect(message).toMatch(/^Organizations and brands: 0 moved, 0 copied by an earlier run/);
    expect(await tableSnapshot(table)).toEqual(before);
  });

  it('finishes a run stopped between a copy and its delete, keeping the copy at the new key', async () => {
    const directory = directoryRepository(table.db, table.tableName);
    await directory.putBrand({ orgId: 'acme', slug: 'acme-wallet', name: 'Acme Wallet (renamed since)' });
    const stale = { PK: 'ORG#acme', SK: 'BRAND#acme-wallet', entity: 'BRAND', orgId: 'acme', slug: 'acme-wallet' };
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...stale, name: 'Acme Wallet' } }));

    const { message } = await migrate(table);

    expect(message).toMatch(/^Organizations and brands: 0 moved, 1 copied by an earlier run/);
    expect(await directory.findBrand('acme', 'acme-wallet')).toEqual({
      orgId: 'acme',
      slug: 'acme-wallet',
      name: 'Acme Wallet (renamed since)',
    });
    expect((await directoryItems(table)).filter((item) => (item.PK as string).startsWith('ORG#'))).toEqual([]);
  });

  it('with --copy, copies without removing, so code of either layout finds every organization; the run after the deploy removes the old items', async () => {
    const copyTable = await createTestTable('migrate-copy');
    await seed(copyTable.db, copyTable.tableName, demo);
    await toOldLayout(copyTable);
    const oldLayout = (await directoryItems(copyTable)).filter((item) => (item.PK as string).startsWith('ORG#'));

    const copied = await runAdminCommand(copyTable.db, copyTable.tableName, ['migrate'], { copy: 'true' }, () => {});
    const afterCopy = await directoryItems(copyTable);
    const { message } = await migrate(copyTable);

    expect(copied).toMatch(/^Organizations and brands: 5 copied, 0 copied before; old items kept/);
    expect(afterCopy.filter((item) => (item.PK as string).startsWith('ORG#'))).toEqual(oldLayout);
    expect(afterCopy.filter((item) => (item.PK as string).startsWith('ORGANIZATION#'))).toHaveLength(5);
    expect(await directoryRepository(copyTable.db, copyTable.tableName).findOrganization('acme')).toMatchObject({
      featureFlags: ['brands-metrics'],
    });
    expect(message).toMatch(/^Organizations and brands: 0 moved, 5 copied by an earlier run/);
    expect(
      (await directoryItems(copyTable)).map((item) => item.PK as string).every((pk) => pk.startsWith('ORGANIZATION#')),
    ).toBe(true);
  });
});
