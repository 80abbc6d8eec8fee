import { describe, expect, it } from 'vitest';
import { BRAND_PROFILE_KEYS, toBrandProfile } from '../../../shared/domain/account/brand-profile.ts';
import { brandProfileFields } from '../../../shared/domain/account/brand-profile-schema.ts';

const brand = { orgId: 'acme', slug: 'acme-wallet' };

describe('brand profiles', () => {
  it('store exactly the fields the fixture and the operator may set', () => {
    expect([...BRAND_PROFILE_KEYS].sort()).toEqual(Object.keys(brandProfileFields).sort());
  });

  it('give documents and registrations without an id the same id on every load, and different ones to different entries', () => {
    const input = {
      legalDocuments: [
        { name: 'Letter of Authorization', url: 'https://acme.example/loa.pdf' },
        { name: 'Power of Attorney', url: 'https://acme.example/poa.pdf' },
      ],
      trademarkRegistrations: [{ mark: 'ACME', registrationNumber: '1', jurisdiction: 'USPTO' }],
    };

    const first = toBrandProfile(brand, input);
    const again = toBrandProfile(brand, input);

    expect(again).toEqual(first);
    expect(first.legalDocuments?.[0]?.id).not.toBe(first.legalDocuments?.[1]?.id);
    expect(first.trademarkRegistrations).toEqual([
      { id: expect.any(Number), mark: 'ACME', registrationNumber: '1', jurisdiction: 'USPTO', url: null },
    ]);
    expect(toBrandProfile(brand, { legalDocuments: [{ id: 5, name: 'x', url: 'y' }] }).legalDocuments).toEqual([
      { id: 5, name: 'x', url: 'y' },
    ]);
  });
});
