import { describe, expect, it } from 'vitest';
import { type DeliveryEvent, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { newWebhookId, type Webhook, type WebhookEventRecord } from '../../shared/domain/webhooks/webhooks.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('webhook-claims');
const store = webhookRepository(table.db, table.tableName);
const LEASE_MS = 10_000;

const hookOf = (): Pick<Webhook, 'id' | 'orgId'> => ({ id: newWebhookId(), orgId: 'acme' });
const eventsOf = (count: number, tag: string): WebhookEventRecord[] =>
  Array.from({ length: count }, (_, i) => ({
    eventId: `evt_${tag}_${i}`,
    type: 'asset.status-updated',
    position: `0000000001000${i}`,
    body: JSON.stringify({ n: i }),
  }));

/** A delivery record of `count` events for a new webhook, written as the generator writes them. */
const recorded = async (count: number, tag: string) => {
  const hook = hookOf();
  const state = await store.generatorState();
  const committed = await store.commitEvents(
    state,
    [{ hook, events: eventsOf(count, tag) }],
    { position: state.position, done: [...state.done] },
    Date.now(),
  );
  return { hook, sort: (committed?.sorts ?? [])[0] as string };
};

const settled = (events: readonly DeliveryEvent[], upTo: number): DeliveryEvent[] =>
  events.map((event, i) => (i < upTo ? { ...event, status: 'SUCCESS', responseStatus: 200 } : event));

describe('claiming a delivery record for one attempt', () => {
  it('takes a new record once, counting the first event, and refuses it while the lease holds', async () => {
    const { hook, sort } = await recorded(3, 'new');
    const now = Date.now();
    const claimed = await store.claim(hook.id, sort, now, LEASE_MS);
    expect(claimed).toMatchObject({ next: 0, claims: 1, notBefore: now + LEASE_MS });
    expect(claimed?.events.map((event) => [event.status, event.attempts])).toEqual([
      ['IN_PROGRESS', 1],
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    expect(await store.claim(hook.id, sort, now + 1, LEASE_MS)).toBeUndefined();
    expect(await store.claim(hook.id, 'missing#record', now, LEASE_MS)).toBeUndefined();
  });

  it('takes a record whose first events are finished at its first unfinished one, once it is due', async () => {
    const { hook, sort } = await recorded(3, 'later');
    const now = Date.now();
    const first = await store.claim(hook.id, sort, now, LEASE_MS);
    if (first === undefined) throw new Error('not claimed');
    const events = settled(first.events, 1);
    await store.record(first, { events, next: 1, notBefore: now + 500 });
    expect(await store.claim(hook.id, sort, now + 499, LEASE_MS)).toBeUndefined();

    const second = await store.claim(hook.id, sort, now + 500, LEASE_MS);
    expect(second).toMatchObject({ next: 1, claims: 2 });
    expect(second?.events.map((event) => [event.status, event.attempts])).toEqual([
      ['SUCCESS', 1],
      ['IN_PROGRESS', 1],
      ['PENDING', 0],
    ]);
  });

  it('lets only the attempt that claimed last record, and never takes a finished record again', async () => {
    const { hook, sort } = await recorded(2, 'over');
    const now = Date.now();
    const stale = await store.claim(hook.id, sort, now, LEASE_MS);
    if (stale === undefined) throw new Error('not claimed');
    // The lease ran out: another worker takes the record over, counting a second attempt of the same event.
    const current = await store.claim(hook.id, sort, now + LEASE_MS, LEASE_MS);
    expect(current?.events[0]).toMatchObject({ status: 'IN_PROGRESS', attempts: 2 });
    if (current === undefined) throw new Error('not taken over');
    await store.record(stale, { events: settled(stale.events, 2), next: 2, notBefore: 0 });
    const [shown] = (await store.listDeliveries(hook.id, 10)).deliveries.slice(-1);
    expect(shown).toMatchObject({ status: 'IN_PROGRESS', attempts: 2 });

    await store.record(current, { events: settled(current.events, 2), next: 2, notBefore: 0 });
    expect(await store.openDeliveries(hook.id)).toEqual([]);
    expect(await store.claim(hook.id, sort, now + 3 * LEASE_MS, LEASE_MS)).toBeUndefined();
  });
});
