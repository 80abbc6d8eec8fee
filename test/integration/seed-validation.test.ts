import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('seed-validation');
const demo = JSON.parse(readFileSync('infra/local/demo.json', 'utf8'));

beforeAll(async () => {
  await seed(table.db, table.tableName, demo);
});

type Entry = Record<string, unknown>;
/** A fresh fixture beside the demo data: new organization, brand, user, groups, assets, keys, activity, reports and reviews referring to them. */
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
  activity: demoActivity(suffixes, new Date('2026-06-01T12:00:00Z'))
    .slice(0, 20)
    .map((change, i) => ({ ...(change as Entry), organization: 'hooli', id: `hooli-${i}`, brands: ['hooli-chat'] })),
  reports: [
    {
      organization: 'hooli',
      id: 1790000000900101,
      title: 'Fake Hooli Chat login',
      createdAt: '2026-11-20T09:15:00Z',
      assets: [
        { content: 'https://hooli-chat-login.example', proposalId: 1790000000900201 },
        { content: 'hooli-chat-support.example', proposalId: 1790000000900202 },
      ],
    },
  ],
  reviews: [
    {
      organization: 'hooli',
      proposalId: 1790000000900201,
      decision: 'APPROVE',
      label: 'Brand Impersonation',
      brand: 'hooli-chat',
      createdAt: '2026-11-20T11:00:00Z',
    },
    {
      organization: 'acme',
      proposalId: 1790000000000203,
      decision: 'REJECT',
      rejectReason: 'insufficient_evidence',
      createdAt: '2026-11-21T16:00:00Z',
    },
  ],
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
  ['reports', 'organization', (report) => (report.organization = 'nowhere')],
  ['reviews', 'organization', (review) => (review.organization = 'nowhere')],
  ['reviews', 'brand', (review) => (review.brand = 'no-such-brand')],
  ['reviews', 'proposalId', (review) => (review.proposalId = 1790000000999999)],
  // A proposal that exists, but is another organization's (acme's in the table, hooli's in the fixture).
  [
    'reviews',
    'proposalId',
    (review) => (review.proposalId = review.organization === 'acme' ? 1790000000900202 : 1790000000000201),
  ],
];

describe('npm run seed with a fixture that refers to something that does not exist', () => {
  it.each(BREAKS)(
    'writes nothing and names %s[index] for each entry whose %s is broken',
    async (section, field, breakIt) => {
      const before = await tableSnapshot(table);
      const entries = (fixture() as unknown as Record<string, Entry[]>)[section] as Entry[];
      const candidates = entries.flatMap((entry, index) => (field in entry || section === 'users' ? [index] : []));

      for (const index of candidates) {
        const broken = fixture();
        breakIt((broken as unknown as Record<string, Entry[]>)[section]?.[index] as Entry);

        await expect(seed(table.db, table.tableName, broken)).rejects.toThrow(`${section}[${index}]`);
      }
      expect(candidates.length).toBeGreaterThan(0);
      expect(await tableSnapshot(table)).toEqual(before);
    },
  );

  it('loads the same fixture once every reference exists', async () => {
    await seed(table.db, table.tableName, fixture());

    const after = await tableSnapshot(table);
    expect(after.some((item) => item.includes('"slug":"hooli"'))).toBe(true);
    expect(after.some((item) => item.includes('"id":"1790000000900101"'))).toBe(true);
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
  ])('refuses %j with that one line and writes nothing', async (words, flags, message) => {
    const before = await tableSnapshot(table);

    await expect(runAdminCommand(table.db, table.tableName, words, flags)).rejects.toThrow(
      new Error(`${message} (npm run admin -- --help lists the commands)`),
    );
    expect(await tableSnapshot(table)).toEqual(before);
  });
});
