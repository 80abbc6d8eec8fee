import { describe, expect, it } from 'vitest';
import { type ConsumptionStore, consumersOf } from '../../../shared/domain/lookups/consumers.ts';

const KEY = 'blocked-phish.xyz';
const VERSION = '1767607200000-0123456789abcdef-000000000002';

/** A store where the block at KEY began at VERSION, acme's webhook took it an hour later and the TAXII collection a minute later. */
const store = (over: Partial<ConsumptionStore> = {}): ConsumptionStore & { asked: string[][] } => {
  const asked: string[][] = [];
  return {
    asked,
    blockedSince: async (key) => (key === KEY ? { version: VERSION, at: '2026-01-05T10:00:00.000Z' } : undefined),
    firstDelivery: async (orgIds, version) => {
      asked.push([...orgIds]);
      return version === VERSION && orgIds.includes('acme') ? '2026-01-05T11:00:00.000Z' : undefined;
    },
    taxiiAddedAt: async (key) => (key === KEY ? '2026-01-05T10:01:00.000Z' : undefined),
    ...over,
  };
};

describe('consumersOf', () => {
  it('lists prefix sync, the TAXII collection and the webhooks, oldest first, each with the time it took the block', async () => {
    const consumers = await consumersOf(store(), KEY, ['acme']);

    expect(consumers).toEqual([
      { consumer: 'blocklist', name: 'Prefix sync', consumedAt: '2026-01-05T10:00:00.000Z' },
      { consumer: 'taxii', name: 'TAXII blocked collection', consumedAt: '2026-01-05T10:01:00.000Z' },
      { consumer: 'webhook', name: 'Webhooks', consumedAt: '2026-01-05T11:00:00.000Z' },
    ]);
  });

  it('leaves out a channel that has not taken the block, and asks only the caller’s organizations’ webhooks', async () => {
    const consumers = store({ taxiiAddedAt: async () => undefined });

    const listed = await consumersOf(consumers, KEY, ['globex']);

    expect(listed).toEqual([{ consumer: 'blocklist', name: 'Prefix sync', consumedAt: '2026-01-05T10:00:00.000Z' }]);
    expect(consumers.asked).toEqual([['globex']]);
  });

  it('lists no consumer when the service does not block the key', async () => {
    expect(await consumersOf(store(), 'allowed.example', ['acme'])).toEqual([]);
  });
});
