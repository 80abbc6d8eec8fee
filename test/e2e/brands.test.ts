import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { brandIdOf } from '../../shared/domain/lifecycle/reviews.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-brands');
const ACME = 'brands-acme-key-0123456789abcdef';
const server = createGateway();
let base = '';

const EMPTY_PROFILE = {
  brandColors: [],
  includedTerms: [],
  excludedTerms: [],
  tickers: [],
  avatarUrl: null,
  websiteUrl: null,
  twitterHandle: null,
  useOrganizationDocs: false,
  legalDocuments: [],
  trademarkRegistrations: [],
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        brands: [
          {
            slug: 'acme-wallet',
            name: 'Acme Wallet',
            brandColors: ['#0052FF'],
            includedTerms: ['acme wallet', 'acmewallet'],
            excludedTerms: ['acme hardware'],
            tickers: ['ACME'],
            avatarUrl: 'https://acme.example/logo.png',
            websiteUrl: 'https://acme.example',
            twitterHandle: 'acmewallet',
            useOrganizationDocs: true,
            legalDocuments: [{ id: 11, name: 'Letter of Authorization', url: 'https://acme.example/loa.pdf' }],
            trademarkRegistrations: [
              {
                id: 21,
                mark: 'ACME',
                registrationNumber: '5123456',
                jurisdiction: 'USPTO',
                url: 'https://acme.example/tm.pdf',
              },
            ],
          },
          { slug: 'dana', name: 'Dana Founder', type: 'INDIVIDUAL' },
        ],
      },
    ],
    apiKeys: [{ key: ACME, organization: 'acme' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const brands = async () => {
  const response = await fetch(`${base}/organization/brands`, { headers: { 'X-API-KEY': ACME } });
  return { status: response.status, body: JSON.parse(await response.text()) };
};

describe('GET /organization/brands with the published brand fields', () => {
  it('answers every field of a fixture’s brand, and empty ones for a brand without them', async () => {
    const response = await brands();

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      brands: [
        {
          id: brandIdOf({ orgId: 'acme', slug: 'acme-wallet' }),
          slug: 'acme-wallet',
          name: 'Acme Wallet',
          type: 'ORGANIZATION',
          brandColors: ['#0052FF'],
          includedTerms: ['acme wallet', 'acmewallet'],
          excludedTerms: ['acme hardware'],
          tickers: ['ACME'],
          avatarUrl: 'https://acme.example/logo.png',
          websiteUrl: 'https://acme.example',
          twitterHandle: 'acmewallet',
          useOrganizationDocs: true,
          legalDocuments: [{ id: 11, name: 'Letter of Authorization', url: 'https://acme.example/loa.pdf' }],
          trademarkRegistrations: [
            {
              id: 21,
              mark: 'ACME',
              registrationNumber: '5123456',
              jurisdiction: 'USPTO',
              url: 'https://acme.example/tm.pdf',
            },
          ],
        },
        {
          id: brandIdOf({ orgId: 'acme', slug: 'dana' }),
          slug: 'dana',
          name: 'Dana Founder',
          type: 'INDIVIDUAL',
          ...EMPTY_PROFILE,
        },
      ],
    });
  });

  it('answers what the operator sets with brand set, keeping the fields it does not name, and a rename keeps them all', async () => {
    const message = await runAdminCommand(
      table.db,
      table.tableName,
      [
        'brand',
        'set',
        'acme',
        'dana',
        '{"includedTerms":["dana founder"],"twitterHandle":"dana","trademarkRegistrations":[{"mark":"DANA","registrationNumber":"77","jurisdiction":"EUIPO"}]}',
      ],
      {},
    );
    await runAdminCommand(table.db, table.tableName, ['brand', 'set', 'acme', 'dana', '{"tickers":["DANA"]}'], {});
    await runAdminCommand(table.db, table.tableName, ['brand', 'create', 'acme', 'dana'], { name: 'Dana F.' });
    const dana = (await brands()).body.brands.find((brand: { slug: string }) => brand.slug === 'dana');

    expect(message).toBe('Brand dana of acme saved: includedTerms, twitterHandle, trademarkRegistrations set');
    expect(dana).toEqual({
      id: brandIdOf({ orgId: 'acme', slug: 'dana' }),
      slug: 'dana',
      name: 'Dana F.',
      type: 'INDIVIDUAL',
      ...EMPTY_PROFILE,
      includedTerms: ['dana founder'],
      tickers: ['DANA'],
      twitterHandle: 'dana',
      trademarkRegistrations: [
        { id: expect.any(Number), mark: 'DANA', registrationNumber: '77', jurisdiction: 'EUIPO', url: null },
      ],
    });
  });

  it('refuses a profile field of the wrong shape, naming it, and changes nothing', async () => {
    const before = await brands();

    const refused = runAdminCommand(
      table.db,
      table.tableName,
      ['brand', 'set', 'acme', 'dana', '{"tickers":"DANA"}'],
      {},
    );

    await expect(refused).rejects.toThrow('tickers: tickers must be an array of strings');
    expect(await brands()).toEqual(before);
  });
});
