import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('seed-validation');
const demo = JSON.parse(readFileSync('infra/local/demo.json', 'utf8'));

beforeAll(async () => {
  await seed(table.db, table.tableName, demo);
});

type Entry = Record<string, unknown>;
/** A fresh fixture beside the demo data: new organization, brand, user, groups, assets, keys and activity referring to them. */
const fixture = () => ({
  organizations: [{ slug: 'hooli', name: 'Hooli', brands: [{ slug: 'hooli-chat', name: 'Hooli Chat' }] }],
  users: [{ id: 'u-hooli', memberships: [{ organization: 'hooli', status: 'ACTIVE' }] }],
  apiKeys: [
    { key: 'hooli-key-0123456789abcdef', organization: 'hooli' },
    { key: 'hooli-user-0123456789abcdef', user: 'u-hooli' },
  ],
  groups: [
    { organization: 'hooli', name: 'Sites' },
    { organization: 'acme', name: 'Hooli partners' },
  ],
  assets: [
    { organization: 'hooli', content: 'https://hooli.example', type: 'URL', group: 'Sites' },
    { organization: 'acme', content: 'https://acme-partner.example', type: 'URL', group: 'Websites' },
    { organization: 'hooli', content: 'https://hooli-chat.example', type: 'URL' },
  ],
  activity: demoActivity(new Date('2026-06-01T12:00:00Z'))
    .slice(0, 20)
    .map((change, i) => ({ ...(change as Entry), organization: 'hooli', id: `hooli-${i}`, brands: ['hooli-chat'] })),
});

/** One reference of the fixture, broken: where it is, and how to break it. */
const BREAKS: [section: string, field: string, broken: (entry: Entry) => void][] = [
  [
    'users',
    'memberships',
    (user) => ((user.memberships as Entry[])[0] = { organization: 'nowhere', status: 'ACTIVE' }),
  ],
  ['apiKeys', 'organization', (key) => (key.organization = 'nowhere')],
  ['apiKeys', 'user', (key) => (key.user = 'ghost')],
  ['groups', 'organization', (group) => (group.organization = 'nowhere')],
  ['assets', 'organization', (asset) => (asset.organization = 'nowhere')],
  ['assets', 'group', (asset) => (asset.group = 'No such group')],
  ['activity', 'organization', (change) => (change.organization = 'nowhere')],
  ['activity', 'brands', (change) => (change.brands = ['no-such-brand'])],
];

describe('npm run seed with a fixture that refers to something that does not exist', () => {
  it('writes nothing and names the section and index of the entry, wherever the bad reference is', async () => {
    const before = await tableSnapshot(table);

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BREAKS), fc.nat(), async ([section, field, breakIt], at) => {
        const broken = fixture();
        const entries = (broken as unknown as Record<string, Entry[]>)[section] as Entry[];
        const candidates = entries
          .map((entry, index) => ({ entry, index }))
          .filter(({ entry }) => field in entry || section === 'users');
        const { entry, index } = candidates[at % candidates.length] as { entry: Entry; index: number };
        breakIt(entry);

        await expect(seed(table.db, table.tableName, broken)).rejects.toThrow(`${section}[${index}]`);
        expect(await tableSnapshot(table)).toEqual(before);
      }),
      { numRuns: 16 },
    );
  });

  it('loads the same fixture once every reference exists', async () => {
    await seed(table.db, table.tableName, fixture());

    const after = await tableSnapshot(table);
    expect(after.some((item) => item.includes('"slug":"hooli"'))).toBe(true);
  });
});

describe('npm run admin with a reference that does not exist', () => {
  it.each([
    [['group', 'create', 'nowhere', 'Sites'], {}, 'Organization nowhere does not exist'],
    [['asset', 'create', 'nowhere', 'URL', 'https://x.example'], {}, 'Organization nowhere does not exist'],
    [['key', 'create'], { org: 'nowhere' }, 'Organization nowhere does not exist'],
    [['key', 'create'], { user: 'ghost' }, 'User ghost does not exist'],
    [['membership', 'set', 'ghost', 'acme', 'ACTIVE'], {}, 'User ghost does not exist'],
    [['membership', 'set', 'u-1', 'nowhere', 'ACTIVE'], {}, 'Organization nowhere does not exist'],
  ])('refuses %j and writes nothing', async (words, flags, message) => {
    const before = await tableSnapshot(table);

    await expect(runAdminCommand(table.db, table.tableName, words, flags)).rejects.toThrow(message);
    expect(await tableSnapshot(table)).toEqual(before);
  });
});
