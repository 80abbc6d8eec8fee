import { describe, expect, it } from 'vitest';
import { parseActivityChange } from '../../../shared/domain/lifecycle/activity.ts';
import { BadRequestError } from '../../../shared/errors.ts';

const threat = {
  organization: 'acme',
  kind: 'threat',
  id: 't-1',
  content: 'acme-airdrop.xyz',
  assetType: 'URL',
  status: 'BLOCKED',
  createdAt: '2026-03-01T10:00:00Z',
};

const rejection = (input: unknown) => {
  try {
    parseActivityChange(input);
  } catch (error) {
    if (error instanceof BadRequestError) return error.issues;
    throw error;
  }
  throw new Error('the change was accepted');
};

describe('activity change schema', () => {
  it('fills the defaults of the fixture format and normalizes timestamps to UTC', () => {
    const change = parseActivityChange({ ...threat, createdAt: '2026-03-01T23:30:00-02:00', extra: 'ignored' });

    expect(change).toEqual({
      organization: 'acme',
      kind: 'threat',
      id: 't-1',
      content: 'acme-airdrop.xyz',
      assetType: 'URL',
      status: 'BLOCKED',
      watchlisted: false,
      brands: [],
      createdAt: '2026-03-02T01:30:00.000Z',
      updatedAt: '2026-03-02T01:30:00.000Z',
      deleted: false,
    });
  });

  it('accepts a report with only its identity and createdAt, and lists each brand once', () => {
    const change = parseActivityChange({
      organization: 'acme',
      kind: 'report',
      id: 'r-1',
      brands: ['acme-wallet', 'acme-wallet'],
      createdAt: '2026-03-01T10:00:00.5Z',
    });

    expect(change).toEqual({
      organization: 'acme',
      kind: 'report',
      id: 'r-1',
      brands: ['acme-wallet'],
      createdAt: '2026-03-01T10:00:00.500Z',
      updatedAt: '2026-03-01T10:00:00.500Z',
      deleted: false,
    });
  });

  it.each([
    ['an unknown kind', { ...threat, kind: 'alert' }, 'kind'],
    ['a threat without content', { ...threat, content: '  ' }, 'content'],
    ['an unknown asset type', { ...threat, assetType: 'WEBSITE' }, 'assetType'],
    ['a threat status on a takedown', { ...threat, kind: 'takedown', status: 'BLOCKED' }, 'status'],
    ['a timestamp without a zone', { ...threat, createdAt: '2026-03-01T10:00:00' }, 'createdAt'],
    ['a day that does not exist', { ...threat, createdAt: '2026-02-29T10:00:00Z' }, 'createdAt'],
    ['a brand that is not a slug', { ...threat, brands: ['Acme Wallet'] }, 'brands.0'],
    ['an organization that is not a slug', { ...threat, organization: 'acme#1' }, 'organization'],
  ])('rejects %s, naming the field', (_, input, path) => {
    expect(rejection(input).map((issue) => issue.path)).toContain(path);
  });

  it('rejects an updatedAt earlier than createdAt', () => {
    expect(rejection({ ...threat, updatedAt: '2026-03-01T09:59:59Z' })).toEqual([
      { message: 'updatedAt must not be earlier than createdAt' },
    ]);
  });

  it('rejects more than 40 brands, which would not fit one DynamoDB transaction', () => {
    const brands = Array.from({ length: 41 }, (_, i) => `brand-${i}`);

    expect(rejection({ ...threat, brands })).toEqual([
      { message: 'brands must hold at most 40 brands', path: 'brands' },
    ]);
  });

  it('rejects NUL and lone surrogates in the text of an ingested change', () => {
    expect(rejection({ ...threat, content: 'acme\u0000.xyz' })).toEqual([
      { message: 'content must not hold NUL or unpaired surrogates', path: 'content' },
    ]);
    expect(rejection({ ...threat, kind: 'report', status: 'TODO', title: 'Scam \ud800' })).toEqual([
      { message: 'title must not hold NUL or unpaired surrogates', path: 'title' },
    ]);
  });
});
