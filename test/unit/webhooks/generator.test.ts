import { describe, expect, it } from 'vitest';
import type {
  ChangeLogReader,
  DeliveryStore,
  GeneratorState,
  LoggedChange,
  NewBatch,
} from '../../../shared/db/webhook-repository.ts';
import { BIT, positionAt } from '../../../shared/domain/verdict-feed/index.ts';
import type { Webhook } from '../../../shared/domain/webhooks/webhooks.ts';
import { eventGenerator } from '../../../shared/webhooks/dispatch.ts';

const NOW = Date.parse('2026-11-21T10:00:10.000Z');
const version = (ms: number, n: number) => `${positionAt(ms)}-0123456789abcdef-${String(n).padStart(12, '0')}`;
const change = (n: number, overrides: Partial<LoggedChange>): LoggedChange => ({
  key: 'phish.example/login',
  type: 'URL',
  bits: BIT.block,
  previousBits: 0,
  version: version(NOW - 1000, n),
  changedAt: new Date(NOW - 1000).toISOString(),
  origins: [],
  ...overrides,
});
const hook = (orgId: string): Webhook => ({
  id: `hook-${orgId}`,
  orgId,
  url: 'https://hooks.example.com/',
  description: null,
  events: ['asset.status-updated'],
  headers: undefined,
  enabled: true,
  createdAt: '2026-11-21T09:00:00.000Z',
  sealedSecret: 'sealed',
});

/** The generator's store in memory: its state, compared and set per transaction, and the records written. */
const memoryStore = () => {
  let state: GeneratorState = { rev: 0, position: '', done: new Set() };
  const batches: NewBatch[] = [];
  let failAt: number | undefined;
  let commits = 0;
  const store: Pick<DeliveryStore, 'generatorState' | 'commitEvents' | 'detectionFeed'> = {
    generatorState: async () => state,
    async commitEvents(expected, written, next) {
      commits++;
      if (commits === failAt) throw new Error('the generator stopped');
      if (expected.rev !== state.rev) return undefined;
      state = { rev: state.rev + 1, position: next.position, done: new Set(next.done) };
      batches.push(...written);
      return { state, sorts: written.map((batch) => `${batch.events[0]?.position}#${batch.events[0]?.eventId}`) };
    },
    detectionFeed: async () => [],
  };
  return {
    store,
    batches,
    failOnCommit: (n: number) => {
      failAt = n;
    },
  };
};
const logOf = (changes: LoggedChange[]): ChangeLogReader => ({
  readFrom: async (from) => changes.filter((entry) => entry.version >= from),
  cursor: async () => positionAt(NOW - 60_000),
  saveCursor: async () => undefined,
});
const eventsFor = (batches: NewBatch[], hookId: string) =>
  batches.filter((batch) => batch.hook.id === hookId).flatMap((batch) => batch.events.map((event) => event.eventId));

describe('the webhook event generator', () => {
  it('records a change for every webhook once when its records span transactions and the generator stops between them', async () => {
    const orgs = ['a', 'b', 'c', 'd', 'e'];
    const hooks = orgs.map(hook);
    const memory = memoryStore();
    const changes = [change(1, { bits: BIT.allow, origins: orgs.map((orgId) => ({ orgId })) })];
    const generator = () =>
      eventGenerator(
        {
          hooks: { listAll: async () => hooks },
          deliveries: memory.store,
          log: logOf(changes),
          records: { allByAsset: async () => [] },
          now: () => NOW,
          batchesPerCommit: 2,
        },
        () => undefined,
      );
    memory.failOnCommit(2);

    await expect(generator().poll()).rejects.toThrow('the generator stopped');
    await generator().poll();
    await generator().poll();

    for (const orgId of orgs) expect(eventsFor(memory.batches, `hook-${orgId}`)).toHaveLength(1);
  });

  it('sends a change to an owner the index of records does not show yet, named by an earlier change of the content', async () => {
    const memory = memoryStore();
    const approved = change(1, { bits: BIT.block, previousBits: 0, origins: [{ orgId: 'acme' }] });
    const allowlisted = change(2, {
      bits: BIT.allow | BIT.block,
      previousBits: BIT.block,
      origins: [{ orgId: 'globex' }],
    });
    const generator = eventGenerator(
      {
        hooks: { listAll: async () => [hook('acme'), hook('globex')] },
        deliveries: memory.store,
        log: logOf([approved, allowlisted]),
        records: { allByAsset: async () => [] },
        now: () => NOW,
      },
      () => undefined,
    );

    await generator.poll();

    expect(eventsFor(memory.batches, 'hook-acme')).toHaveLength(2);
    expect(eventsFor(memory.batches, 'hook-globex')).toHaveLength(1);
    const acme = memory.batches.filter((batch) => batch.hook.id === 'hook-acme').flatMap((batch) => batch.events);
    expect(acme.map((event) => JSON.parse(event.body).data.status)).toEqual(['BLOCKED', 'ALLOWED']);
  });

  it('reads each content once a poll, and records a group while the reads of the groups after it go on', async () => {
    const memory = memoryStore();
    const contents = 600;
    // acme allowlists 600 contents, then releases the first 300 of them; globex listens too.
    const changes = Array.from({ length: contents + 300 }, (_, n) =>
      change(n + 1, {
        key: `phish-${n % contents}.example/login`,
        bits: n < contents ? BIT.allow : 0,
        previousBits: n < contents ? 0 : BIT.allow,
        origins: [{ orgId: 'acme' }],
      }),
    );
    const reads: number[] = [];
    let started = 0;
    let startedBeforeFirstCommit: number | undefined;
    const generator = eventGenerator(
      {
        hooks: { listAll: async () => [hook('acme'), hook('globex')] },
        deliveries: {
          ...memory.store,
          async commitEvents(...args) {
            startedBeforeFirstCommit ??= started;
            await new Promise((resolve) => setImmediate(resolve));
            return memory.store.commitEvents(...args);
          },
        },
        log: logOf(changes),
        records: {
          async allByAsset(assetId) {
            started++;
            reads.push(assetId);
            await new Promise((resolve) => setImmediate(resolve));
            return [];
          },
        },
        now: () => NOW,
      },
      () => undefined,
    );

    expect(await generator.poll()).toEqual({ changes: changes.length, events: changes.length });

    expect(reads).toHaveLength(contents);
    expect(new Set(reads).size).toBe(contents);
    expect(eventsFor(memory.batches, 'hook-globex')).toEqual([]);
    const acme = memory.batches.filter((batch) => batch.hook.id === 'hook-acme').flatMap((batch) => batch.events);
    expect(acme.map((event) => event.position)).toEqual(changes.map((entry) => entry.version));
    // The first group (400 entries) went to its transaction with the next group's reads already under way.
    expect(startedBeforeFirstCommit).toBeGreaterThan(400);
  });
});
