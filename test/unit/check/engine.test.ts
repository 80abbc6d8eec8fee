import { describe, expect, it } from 'vitest';
import { systemTimer } from '../../../shared/db/adapters/timer.ts';
import { createChecker } from '../../../shared/domain/check/engine.ts';
import { ethPhishingSource } from '../../../shared/domain/check/eth-phishing-detect.ts';
import { listSource } from '../../../shared/domain/check/lists.ts';
import type { CheckIndexStore, ExternalSource } from '../../../shared/domain/check/types.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { memoryIndex } from './world.ts';

const index = memoryIndex({ allow: ['https://acme.com'], block: ['acme-airdrop.xyz'] });
const eth = ethPhishingSource({ allow: [], block: ['eth-drainer.com'], fuzzy: [], tolerance: 0 });
const seal = listSource('seal', { allow: [], deny: ['acme-airdrop.xyz', 'seal-only.io'] });

/** An empty check index that records the keys of every lookup. */
const recordingIndex = () => {
  const lookups: string[][] = [];
  const spy: CheckIndexStore = {
    lookup: (keys) => {
      lookups.push([...keys]);
      return keys.map(() => undefined);
    },
  };
  return { spy, lookups };
};

const hanging: ExternalSource = { name: 'vendor', budgetMs: 15, check: () => new Promise(() => {}) };
const throwing: ExternalSource = {
  name: 'vendor',
  budgetMs: 15,
  check: () => {
    throw new Error('vendor client not configured');
  },
};
const rejecting: ExternalSource = {
  name: 'vendor',
  budgetMs: 15,
  check: () => Promise.reject(new Error('vendor API answered 503')),
};

describe('asset check faults', () => {
  it('returns the service’s BLOCKED verdict and reports timeout for a source that hangs past its budget', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [eth, hanging, seal] });

    const result = await checker.check('https://acme-airdrop.xyz/claim');

    expect(result).toEqual({
      status: 'BLOCKED',
      source: 'service',
      sources: [
        { source: 'service', status: 'BLOCKED' },
        { source: 'eth-phishing-detect', status: 'UNKNOWN' },
        { source: 'vendor', status: 'UNKNOWN', reason: 'timeout' },
        { source: 'seal', status: 'BLOCKED' },
      ],
      message: 'acme-airdrop.xyz is a reported threat',
      watchStatus: 'DISABLED',
    });
  });

  it('returns the service’s ALLOWED verdict and reports source-error for a source that throws', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [throwing, eth] });

    const result = await checker.check('https://acme.com');

    expect(result).toEqual({
      status: 'ALLOWED',
      source: 'service',
      sources: [
        { source: 'service', status: 'ALLOWED' },
        { source: 'eth-phishing-detect', status: 'UNKNOWN' },
        { source: 'vendor', status: 'UNKNOWN', reason: 'source-error' },
      ],
      message: 'acme.com is allowlisted by an organization',
    });
  });

  it('reports source-error for a live source whose call rejects', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [rejecting] });

    const result = await checker.check('unknown-site.com');

    expect(result).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [
        { source: 'service', status: 'UNKNOWN' },
        { source: 'vendor', status: 'UNKNOWN', reason: 'source-error' },
      ],
      reason: 'source-error',
    });
  });

  it('reports timeout rather than not-found when no source knows the content and one timed out', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [hanging, seal] });

    const result = await checker.check('unknown-site.com');

    expect(result.reason).toBe('timeout');
    expect(result.status).toBe('UNKNOWN');
  });

  it('still answers from the external lists with code internal-error when the check index fails', async () => {
    const failing: CheckIndexStore = { lookup: () => Promise.reject(new Error('ProvisionedThroughputExceeded')) };
    const checker = createChecker({ suffixes, timer: systemTimer, index: failing, sources: () => [seal] });

    const result = await checker.check('seal-only.io');

    expect(result).toEqual({
      status: 'BLOCKED',
      source: 'seal',
      sources: [
        { source: 'service', status: 'UNKNOWN', reason: 'source-error' },
        { source: 'seal', status: 'BLOCKED' },
      ],
      reason: 'external-source',
      code: 'internal-error',
      message: 'seal lists seal-only.io',
    });
  });

  it('reports timeout for the service when the check index does not answer within its budget', async () => {
    const slow: CheckIndexStore = { lookup: () => new Promise(() => {}) };
    const checker = createChecker({ suffixes, timer: systemTimer, index: slow, sources: () => [], indexBudgetMs: 15 });

    const result = await checker.check('acme.com');

    expect(result).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN', reason: 'timeout' }],
      reason: 'timeout',
      code: 'internal-error',
    });
  });
});

describe('asset check results', () => {
  it('lists the consulted sources in the published order whatever order they are configured in', async () => {
    const polkadot = listSource('polkadot-phishing', { allow: [], deny: [] });
    const vendor = listSource('vendor', { allow: [], deny: [] });
    const checker = createChecker({
      suffixes,
      timer: systemTimer,
      index,
      sources: () => [polkadot, seal, vendor, eth],
    });

    const result = await checker.check('nothing-here.org');

    expect(result.sources.map((s) => s.source)).toEqual([
      'service',
      'eth-phishing-detect',
      'vendor',
      'seal',
      'polkadot-phishing',
    ]);
  });

  it('does not consult eth-phishing-detect, a domain list, for an address', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [eth, seal] });

    const result = await checker.check('0x1234567890123456789012345678901234567890');

    expect(result).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [
        { source: 'service', status: 'UNKNOWN' },
        { source: 'seal', status: 'UNKNOWN' },
      ],
      reason: 'not-found',
    });
  });

  it('reports the sources that answered for each unlisted content, when they differ from one check to the next', async () => {
    let sources: ExternalSource[] = [eth, seal];
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => sources });
    const notFound = (...answered: ExternalSource['name'][]) => ({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN' }, ...answered.map((source) => ({ source, status: 'UNKNOWN' }))],
      reason: 'not-found',
    });

    const results = [
      await checker.check('https://nothing-here.org/a'),
      await checker.check('0x1234567890123456789012345678901234567890'),
      await checker.check('https://nothing-there.org/b'),
    ];
    sources = [seal, listSource('polkadot-phishing', { allow: [], deny: [] })];
    results.push(await checker.check('https://nothing-here.org/a'));

    expect(results).toEqual([
      notFound('eth-phishing-detect', 'seal'),
      notFound('seal'),
      notFound('eth-phishing-detect', 'seal'),
      notFound('seal', 'polkadot-phishing'),
    ]);
  });

  it('names the parent domain a verdict is inherited from', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [] });

    const result = await checker.check('https://login.acme-airdrop.xyz');

    expect(result).toEqual({
      status: 'BLOCKED',
      source: 'service',
      sources: [{ source: 'service', status: 'BLOCKED' }],
      reason: 'parent-domain',
      message: 'Inherited from acme-airdrop.xyz, a reported threat',
      watchStatus: 'DISABLED',
    });
  });

  it('answers UNKNOWN with reason hosting-domain for a hosting platform without looking anything up', async () => {
    const { spy, lookups } = recordingIndex();
    const checker = createChecker({ suffixes, timer: systemTimer, index: spy, sources: () => [eth] });

    const result = await checker.check('https://netlify.app');

    expect(result).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN' }],
      reason: 'hosting-domain',
      message: 'netlify.app hosts content of many owners: check a page or subdomain on it',
    });
    expect(lookups).toEqual([]);
  });

  it('answers UNKNOWN with code parse-error for content that cannot be parsed', async () => {
    const checker = createChecker({ suffixes, timer: systemTimer, index, sources: () => [eth] });

    const result = await checker.check('https://bad host.com');

    expect(result).toEqual({
      status: 'UNKNOWN',
      source: 'service',
      sources: [{ source: 'service', status: 'UNKNOWN' }],
      code: 'parse-error',
      message: 'Content is not a valid URL, domain, address, email or phone number',
    });
  });

  it('looks every candidate key up in one call to the check index', async () => {
    const { spy, lookups } = recordingIndex();
    const checker = createChecker({ suffixes, timer: systemTimer, index: spy, sources: () => [] });

    await checker.check('https://a.b.acme.com/x/y');

    expect(lookups).toEqual([['a.b.acme.com/x/y', 'a.b.acme.com/x', 'a.b.acme.com', 'b.acme.com', 'acme.com']]);
  });
});
