import { describe, expect, it } from 'vitest';
import { httpListReader } from '../../../shared/db/adapters/list-reader.ts';
import type { ListSnapshot, SnapshotStore } from '../../../shared/domain/check/lists.ts';
import { parseFeeds, syncLists } from '../../../shared/domain/check/sync.ts';

const memoryStore = () => {
  const saved: ListSnapshot[] = [];
  const store: SnapshotStore = {
    latest: async (source) => saved.findLast((snapshot) => snapshot.source === source),
    pointer: async (source) => {
      const snapshot = saved.findLast((s) => s.source === source);
      return snapshot && { ...snapshot, entries: snapshot.deny.length };
    },
    save: async (snapshot) => {
      saved.push(snapshot);
    },
  };
  return { store, saved };
};

/** A fetch answering from a table of URLs; `hang` never answers until the request is aborted. */
const fakeFetch =
  (answers: Record<string, { status?: number; body?: string; hang?: boolean }>): typeof fetch =>
  async (input, init) => {
    const answer = answers[String(input)];
    if (!answer) throw new TypeError('fetch failed');
    if (answer.hang) {
      return new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    }
    return new Response(answer.body ?? '', { status: answer.status ?? 200 });
  };

const POLKADOT = 'https://lists.example/polkadot.json';
const VENDOR = 'https://vendor.example/feed.txt';
const vendorFeed = { source: 'vendor' as const, url: VENDOR };
const feeds = [{ source: 'polkadot-phishing' as const, url: POLKADOT }, vendorFeed];
const now = () => new Date('2026-04-01T00:00:00Z');

describe('list sync', () => {
  it('stores a canonical snapshot of every configured list', async () => {
    const { store, saved } = memoryStore();
    const fetch = fakeFetch({
      [POLKADOT]: { body: '{"allow": ["Polkadot.network"], "deny": ["Claim-DOT.app."]}' },
      [VENDOR]: { body: 'evil.example.com\n' },
    });

    const outcomes = await syncLists(feeds, store, { read: httpListReader({ fetch }), now });

    expect(outcomes.map((o) => o.outcome)).toEqual(['saved', 'saved']);
    expect(saved.map((s) => [s.source, s.allow, s.deny])).toEqual([
      ['polkadot-phishing', ['polkadot.network'], ['claim-dot.app']],
      ['vendor', [], ['evil.example.com']],
    ]);
  });

  it('stores nothing new when a list has not changed, and reports the entries and fetch time of the snapshot kept', async () => {
    const { store, saved } = memoryStore();
    const fetch = fakeFetch({ [VENDOR]: { body: 'evil.example.com\n' } });
    await syncLists([vendorFeed], store, { read: httpListReader({ fetch }), now });

    const outcomes = await syncLists([vendorFeed], store, { read: httpListReader({ fetch }), now });

    expect(outcomes).toEqual([
      {
        source: 'vendor',
        outcome: 'unchanged',
        version: saved[0]?.version,
        entries: 1,
        fetchedAt: saved[0]?.fetchedAt,
      },
    ]);
    expect(saved).toHaveLength(1);
  });

  it('reports a failing list and still syncs the others', async () => {
    const { store, saved } = memoryStore();
    const fetch = fakeFetch({ [POLKADOT]: { status: 503 }, [VENDOR]: { body: 'evil.example.com' } });

    const outcomes = await syncLists(feeds, store, { read: httpListReader({ fetch }), now });

    expect(outcomes.map((o) => [o.source, o.outcome])).toEqual([
      ['polkadot-phishing', 'failed'],
      ['vendor', 'saved'],
    ]);
    expect(saved.map((s) => s.source)).toEqual(['vendor']);
  });

  it('gives up on a list that does not answer within the timeout', async () => {
    const { store, saved } = memoryStore();
    const fetch = fakeFetch({ [VENDOR]: { hang: true } });

    const [outcome] = await syncLists([vendorFeed], store, { read: httpListReader({ fetch, timeoutMs: 20 }), now });

    expect(outcome?.outcome).toBe('failed');
    expect(saved).toEqual([]);
  });

  it('keeps the last good snapshot when a list comes back empty', async () => {
    const { store, saved } = memoryStore();
    const fetch = fakeFetch({ [VENDOR]: { body: '# nothing today\n' } });

    const [outcome] = await syncLists([vendorFeed], store, { read: httpListReader({ fetch }), now });

    expect(outcome?.outcome).toBe('failed');
    expect(saved).toEqual([]);
  });
});

describe('list sync configuration', () => {
  it('reads list URLs by source name', () => {
    expect(parseFeeds('{"seal": "https://seal.example/list.json"}')).toEqual([
      { source: 'seal', url: 'https://seal.example/list.json' },
    ]);
  });

  it('has no lists when none are configured', () => {
    expect(parseFeeds(undefined)).toEqual([]);
  });

  it('rejects an unknown source name', () => {
    expect(() => parseFeeds('{"google": "https://example.com"}')).toThrow(/List sources are/);
  });
});
