import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { systemTimer } from '../../../shared/db/adapters/timer.ts';
import { readShippedEthList } from '../../../shared/db/list-snapshot-store.ts';
import { createChecker } from '../../../shared/domain/check/engine.ts';
import {
  externalListsVersion,
  type ListSnapshot,
  loadExternalLists,
  loadExternalSources,
  refreshingSources,
  type SnapshotStore,
  snapshotOf,
} from '../../../shared/domain/check/lists.ts';
import type { ExternalSource, ExternalSourceName } from '../../../shared/domain/check/types.ts';
import { suffixes } from '../../fixtures/suffixes.ts';
import { memoryIndex } from './world.ts';

const FETCHED_AT = new Date('2026-03-01T12:00:00.123Z');
const URL_OF = 'https://lists.example/list.json';

const memoryStore = (snapshots: ListSnapshot[] = []): SnapshotStore => {
  const latest = new Map(snapshots.map((snapshot) => [snapshot.source, snapshot]));
  return {
    latest: async (source) => latest.get(source),
    pointer: async (source) => {
      const snapshot = latest.get(source);
      return snapshot && { ...snapshot, entries: snapshot.allow.length + snapshot.deny.length };
    },
    save: async (snapshot) => {
      latest.set(snapshot.source, snapshot);
    },
  };
};

describe('list snapshots', () => {
  it('canonicalizes entries with the check’s own function and drops hosting platforms', () => {
    const body = JSON.stringify({
      allow: ['Polkadot.Network.'],
      deny: ['EVIL.com.', 'www.evil.com', 'bücher-claim.de', 'pages.dev', 'x.com', 'phish.pages.dev', ''],
    });

    const snapshot = snapshotOf(suffixes, 'polkadot-phishing', body, URL_OF, FETCHED_AT);

    expect(snapshot).toEqual({
      source: 'polkadot-phishing',
      version: `20260301T120000Z-${snapshot.sha256.slice(0, 12)}`,
      fetchedAt: '2026-03-01T12:00:00.123Z',
      url: URL_OF,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      allow: ['polkadot.network'],
      deny: ['evil.com', 'phish.pages.dev', 'xn--bcher-claim-thb.de'],
    });
  });

  it.each([
    ['a hosts file', '# comment\n0.0.0.0 evil.com\n127.0.0.1 Claim-Now.xyz # inline\n\n'],
    ['plain lines', 'evil.com\r\nclaim-now.xyz\n'],
    ['a JSON array', '["evil.com", "claim-now.xyz"]'],
    ['an object of arrays', '{"scams": ["evil.com"], "drainers": ["claim-now.xyz"]}'],
  ])('reads deny entries from %s', (_format, body) => {
    expect(snapshotOf(suffixes, 'vendor', body, URL_OF, FETCHED_AT).deny).toEqual(['claim-now.xyz', 'evil.com']);
  });

  it('keeps eth-phishing-detect entries as hosts, www. included, with its fuzzy list and tolerance', () => {
    const body = JSON.stringify({
      version: 2,
      tolerance: 2,
      fuzzylist: ['MetaMask.io'],
      whitelist: ['metamask.io'],
      blacklist: ['www.evil.com', 'Evil.ORG.'],
    });

    const snapshot = snapshotOf(suffixes, 'eth-phishing-detect', body, URL_OF, FETCHED_AT);

    expect([snapshot.allow, snapshot.deny, snapshot.fuzzy, snapshot.tolerance]).toEqual([
      ['metamask.io'],
      ['evil.org', 'www.evil.com'],
      ['metamask.io'],
      2,
    ]);
  });

  it('gives the same content the same digest whatever order it came in', () => {
    const one = snapshotOf(suffixes, 'seal', '["a-evil.com", "b-evil.com"]', URL_OF, FETCHED_AT);
    const two = snapshotOf(suffixes, 'seal', 'b-evil.com\na-evil.com\n', URL_OF, new Date('2026-03-02T00:00:00Z'));

    expect(two.sha256).toBe(one.sha256);
  });
});

describe('loading the external sources', () => {
  const names = (sources: readonly ExternalSource[]) => sources.map((source) => source.name);
  const shipped = { whitelist: ['shipped-allowed.org'], blacklist: ['shipped-blocked.org'], tolerance: 0 };

  it('uses the list eth-phishing-detect ships and consults no list without a snapshot', async () => {
    const sources = await loadExternalSources(memoryStore(), () => shipped);
    const checker = createChecker({ suffixes, timer: systemTimer, index: memoryIndex({}), sources: () => sources });

    const result = await checker.check('shipped-blocked.org');

    expect(names(sources)).toEqual(['eth-phishing-detect']);
    expect([result.status, result.source]).toEqual(['BLOCKED', 'eth-phishing-detect']);
  });

  it('reads the list eth-phishing-detect ships from the file the check function is deployed with', async () => {
    const packaged: unknown = createRequire(import.meta.url)('eth-phishing-detect/src/config.json');

    const list = await readShippedEthList();

    expect(list).toEqual(packaged);
  });

  it('prefers a synced eth-phishing-detect snapshot to the shipped list', async () => {
    const synced = snapshotOf(
      suffixes,
      'eth-phishing-detect',
      '{"blacklist": ["synced-blocked.org"]}',
      URL_OF,
      FETCHED_AT,
    );
    const sources = await loadExternalSources(memoryStore([synced]), () => shipped);
    const checker = createChecker({ suffixes, timer: systemTimer, index: memoryIndex({}), sources: () => sources });

    expect((await checker.check('synced-blocked.org')).status).toBe('BLOCKED');
    expect((await checker.check('shipped-blocked.org')).status).toBe('UNKNOWN');
  });

  it('loads every list that has a snapshot', async () => {
    const lists: ExternalSourceName[] = ['vendor', 'seal', 'polkadot-phishing'];
    const store = memoryStore(
      lists.map((source) => snapshotOf(suffixes, source, `${source}.example.com`, URL_OF, FETCHED_AT)),
    );

    const sources = await loadExternalSources(store, () => shipped);

    expect(names(sources)).toEqual(['eth-phishing-detect', 'vendor', 'seal', 'polkadot-phishing']);
  });

  it('names the loaded lists by the version their snapshots’ pointers give, which moves when a snapshot does', async () => {
    const store = memoryStore([snapshotOf(suffixes, 'seal', 'seal.example.com', URL_OF, FETCHED_AT)]);

    const before = await externalListsVersion(store);
    const loaded = await loadExternalLists(store, () => shipped);
    await store.save(snapshotOf(suffixes, 'seal', 'other.example.com', URL_OF, FETCHED_AT));

    expect(loaded.version).toBe(before);
    expect(await externalListsVersion(store)).not.toBe(before);
  });

  it('reports each loaded list’s own answer for keys that several lists hold', async () => {
    const store = memoryStore([
      snapshotOf(suffixes, 'vendor', JSON.stringify({ allow: ['shared.example'], deny: [] }), URL_OF, FETCHED_AT),
      snapshotOf(
        suffixes,
        'seal',
        JSON.stringify({ allow: [], deny: ['shared.example', 'seal-only.example'] }),
        URL_OF,
        FETCHED_AT,
      ),
      snapshotOf(
        suffixes,
        'polkadot-phishing',
        JSON.stringify({ allow: [], deny: ['deep.shared.example'] }),
        URL_OF,
        FETCHED_AT,
      ),
    ]);
    const sources = await loadExternalSources(store, () => shipped);
    const checker = createChecker({ suffixes, timer: systemTimer, index: memoryIndex({}), sources: () => sources });

    const shared = await checker.check('https://deep.shared.example/');
    const sealOnly = await checker.check('https://seal-only.example/');

    expect(shared.sources).toEqual([
      { source: 'service', status: 'UNKNOWN' },
      { source: 'eth-phishing-detect', status: 'UNKNOWN' },
      { source: 'vendor', status: 'ALLOWED' },
      { source: 'seal', status: 'BLOCKED' },
      { source: 'polkadot-phishing', status: 'BLOCKED' },
    ]);
    expect(sealOnly.sources).toEqual([
      { source: 'service', status: 'UNKNOWN' },
      { source: 'eth-phishing-detect', status: 'UNKNOWN' },
      { source: 'vendor', status: 'UNKNOWN' },
      { source: 'seal', status: 'BLOCKED' },
      { source: 'polkadot-phishing', status: 'UNKNOWN' },
    ]);
  });

  it('skips a list whose snapshot cannot be read and says which', async () => {
    const store: SnapshotStore = {
      ...memoryStore([snapshotOf(suffixes, 'seal', 'seal.example.com', URL_OF, FETCHED_AT)]),
      latest: async (source) => {
        if (source === 'vendor') throw new Error('AccessDenied');
        return source === 'seal' ? snapshotOf(suffixes, 'seal', 'seal.example.com', URL_OF, FETCHED_AT) : undefined;
      },
    };
    const onError = vi.fn();

    const sources = await loadExternalSources(store, () => shipped, { onError });

    expect(names(sources)).toEqual(['eth-phishing-detect', 'seal']);
    expect(onError).toHaveBeenCalledWith('vendor', expect.any(Error));
  });
});

describe('refreshing the external sources', () => {
  const source = (name: ExternalSourceName): ExternalSource => ({ name, budgetMs: 1, check: () => undefined });

  it('waits for the first load, then answers at once and reloads in the background after the interval', async () => {
    let clock = 0;
    const loads = [[source('vendor')], [source('seal')]];
    const load = vi.fn(async () => loads.shift() ?? []);
    const sources = refreshingSources(load, { refreshMs: 1000, now: () => clock });

    const first = await sources.get();
    const cached = sources.get();
    clock = 1000;
    const stale = sources.get();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const fresh = sources.get();

    expect([first, cached, stale, fresh].map((list) => (list as ExternalSource[]).map((s) => s.name))).toEqual([
      ['vendor'],
      ['vendor'],
      ['vendor'],
      ['seal'],
    ]);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('keeps the lists it has when a reload fails', async () => {
    let clock = 0;
    let fail = false;
    const onError = vi.fn();
    const sources = refreshingSources(
      async () => {
        if (fail) throw new Error('S3 unavailable');
        return [source('vendor')];
      },
      { refreshMs: 10, now: () => clock, onError },
    );
    await sources.get();
    fail = true;
    clock = 10;

    sources.get();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const after = await sources.get();

    expect(after.map((s) => s.name)).toEqual(['vendor']);
    expect(onError).toHaveBeenCalledOnce();
  });
});
