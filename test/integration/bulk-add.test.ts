import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { assetIdentity } from '../../shared/domain/allowlist/assets.ts';
import { entryKeyOf } from '../../shared/domain/check/canonical.ts';
import { apiEvent, call } from '../fixtures/api-event.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('bulk-add');
const { handler: createAssets } = await import('../../functions/assets/create.ts');
const ACME = 'acme-key-0123456789abcdef';
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
let websites = 0;

const snapshot = async () => {
  const { Items = [] } = await table.db.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return new Map(Items.map((item) => [`${item.PK}|${item.SK}`, item]));
};
/** What changed between two snapshots: items added, and items whose attributes differ. */
const diff = (before: Map<string, unknown>, after: Map<string, unknown>) =>
  [...after]
    .filter(([k, item]) => JSON.stringify(before.get(k)) !== JSON.stringify(item))
    .map(([k]) => k)
    .sort();

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [{ slug: 'acme', name: 'Acme' }],
    apiKeys: [{ key: ACME, organization: 'acme', scopes: ['read', 'write'] }],
    groups: [{ organization: 'acme', name: 'Websites' }],
    assets: [{ organization: 'acme', content: 'https://acme.com', type: 'URL', group: 'Websites' }],
  });
  websites = (await groups.list('acme'))[0]?.id as number;
});

describe('a bulk add and the table', () => {
  it('writes nothing at all when the last item names an unknown group', async () => {
    const before = await snapshot();
    const body = {
      assets: [
        { content: 'https://first.example', groupId: websites },
        { content: 'https://second.example' },
        { content: 'https://last.example', groupId: 999 },
      ],
    };

    const response = await call(createAssets, apiEvent({ method: 'POST', apiKey: ACME, body }));

    expect(response.statusCode).toBe(404);
    expect(diff(before, await snapshot())).toEqual([]);
  });

  it('holds exactly what the results report when a group vanishes while the assets are written', async () => {
    const gone = 4242;
    const contents = ['https://kept-1.example', 'https://kept-2.example', 'https://orphan.example', 'https://acme.com'];
    const prepared = contents.map((content, i) => ({
      content,
      type: 'URL' as const,
      groupId: i === 0 ? websites : i === 2 ? gone : null,
      identity: assetIdentity(suffixes, content, 'URL'),
      checkKey: entryKeyOf(suffixes, content, 'URL'),
    }));
    const before = await snapshot();

    const outcomes = await assets.addMany('acme', prepared);

    const created = outcomes.flatMap((outcome) => ('created' in outcome ? [outcome.created] : []));
    expect(outcomes.map((outcome) => ('created' in outcome ? 'created' : outcome.failed))).toEqual([
      'created',
      'created',
      'group-gone',
      'exists',
    ]);
    const identityOf = (content: string) => key.assetIdentity('acme', 'URL', assetIdentity(suffixes, content, 'URL'));
    const expected = created.flatMap((asset) => [
      `${key.asset(asset.id).PK}|ASSET`,
      `${identityOf(asset.content).PK}|${identityOf(asset.content).SK}`,
      `${key.checkEntry(entryKeyOf(suffixes, asset.content, 'URL') as string).PK}|CHECK`,
    ]);
    const after = await snapshot();
    const changed = diff(before, after);
    const logged = changed.filter((k) => (after.get(k) as { entity?: string }).entity === 'VERDICT_CHANGE');
    // Each asset that enters the allowlist enters the organization's TAXII `allowed` collection: an object and its version.
    const collected = changed.filter((k) => k.startsWith('TAXII#acme#allowed|'));
    expect(collected.filter((k) => k.includes('|O#indicator--'))).toHaveLength(created.length);
    expect(collected.filter((k) => k.includes('|V#'))).toHaveLength(created.length);
    expect(changed.filter((k) => !logged.includes(k) && !collected.includes(k))).toEqual(
      [...expected, `${key.group('acme', websites).PK}|${key.group('acme', websites).SK}`].sort(),
    );
    expect(logged.map((k) => (after.get(k) as { key: string }).key).sort()).toEqual(
      created.map((asset) => entryKeyOf(suffixes, asset.content, 'URL')).sort(),
    );
    expect((await groups.list('acme'))[0]?.assetCount).toBe(2);
  });
});
