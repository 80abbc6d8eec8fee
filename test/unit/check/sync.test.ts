import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { httpListReader } from '../../../shared/db/adapters/list-reader.ts';
import type { ListSnapshot, SnapshotStore } from '../../../shared/domain/check/lists.ts';
import { parseFeeds, syncLists } from '../../../shared/domain/check/sync.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

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

/** A list host on 127.0.0.1 answering by path from a table; `hang` never answers. */
let answers: Record<string, { status?: number; body?: string; hang?: boolean }> = {};
const lists = createServer((request, response) => {
  const answer = answers[request.url ?? ''];
  if (answer?.hang) return;
  response.writeHead(answer?.status ?? (answer ? 200 : 404)).end(answer?.body ?? '');
});
await new Promise<void>((listening) => lists.listen(0, '127.0.0.1', listening));
afterAll(async () => {
  lists.closeAllConnections();
  await new Promise((closed) => lists.close(closed));
});
const { port } = lists.address() as AddressInfo;
/** The local stage's policy: the lists are on this host, over http. */
const reader = (timeoutMs?: number) =>
  httpListReader({
    policy: { allowLoopback: true },
    resolve: async () => ['127.0.0.1'],
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
const serve = (table: typeof answers) => {
  answers = table;
};

const POLKADOT = `http://127.0.0.1:${port}/polkadot.json`;
const VENDOR = `http://127.0.0.1:${port}/feed.txt`;
const vendorFeed = { source: 'vendor' as const, url: VENDOR };
const feeds = [{ source: 'polkadot-phishing' as const, url: POLKADOT }, vendorFeed];
const now = () => new Date('2026-04-01T00:00:00Z');

describe('list sync', () => {
  it('stores a canonical snapshot of every configured list', async () => {
    const { store, saved } = memoryStore();
    serve({
      '/polkadot.json': { body: '{"allow": ["Polkadot.network"], "deny": ["Claim-DOT.app."]}' },
      '/feed.txt': { body: 'evil.example.com\n' },
    });

    const outcomes = await syncLists(feeds, store, { suffixes, read: reader(), now });

    expect(outcomes.map((o) => o.outcome)).toEqual(['saved', 'saved']);
    expect(saved.map((s) => [s.source, s.allow, s.deny])).toEqual([
      ['polkadot-phishing', ['polkadot.network'], ['claim-dot.app']],
      ['vendor', [], ['evil.example.com']],
    ]);
  });

  it('stores nothing new when a list has not changed, and reports the entries and fetch time of the snapshot kept', async () => {
    const { store, saved } = memoryStore();
    serve({ '/feed.txt': { body: 'evil.example.com\n' } });
    await syncLists([vendorFeed], store, { suffixes, read: reader(), now });

    const outcomes = await syncLists([vendorFeed], store, { suffixes, read: reader(), now });

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
    serve({ '/polkadot.json': { status: 503 }, '/feed.txt': { body: 'evil.example.com' } });

    const outcomes = await syncLists(feeds, store, { suffixes, read: reader(), now });

    expect(outcomes.map((o) => [o.source, o.outcome])).toEqual([
      ['polkadot-phishing', 'failed'],
      ['vendor', 'saved'],
    ]);
    expect(saved.map((s) => s.source)).toEqual(['vendor']);
  });

  it('gives up on a list that does not answer within the timeout', async () => {
    const { store, saved } = memoryStore();
    serve({ '/feed.txt': { hang: true } });

    const [outcome] = await syncLists([vendorFeed], store, { suffixes, read: reader(20), now });

    expect(outcome?.outcome).toBe('failed');
    expect(saved).toEqual([]);
  });

  it('keeps the last good snapshot when a list comes back empty', async () => {
    const { store, saved } = memoryStore();
    serve({ '/feed.txt': { body: '# nothing today\n' } });

    const [outcome] = await syncLists([vendorFeed], store, { suffixes, read: reader(), now });

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

  it.each([
    'http://seal.example/list.json',
    'https://127.0.0.1/list.json',
    'https://user:secret@seal.example/list.json',
  ])('rejects the list URL %s, which the egress policy refuses', (url) => {
    expect(() => parseFeeds(JSON.stringify({ seal: url }))).toThrow('A list URL must be a public https URL');
  });

  it('rejects an unknown source name', () => {
    expect(() => parseFeeds('{"google": "https://example.com"}')).toThrow(/List sources are/);
  });
});
