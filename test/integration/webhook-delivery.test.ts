import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { type Delivery, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { newWebhookId, type Webhook } from '../../shared/domain/webhooks/webhooks.ts';
import { testEvent } from '../../shared/webhooks/dispatch.ts';
import type { Dispatcher } from '../../shared/webhooks/local-queue.ts';
import { createTestTable } from '../fixtures/table.ts';
import { type Receiver, startReceiver, verifySignature } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('webhook-delivery');
const keyFile = join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key');
const sealer = localSealer(keyFile);
const store = webhookRepository(table.db, table.tableName);
const SECRET = 'a'.repeat(64);
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const receiver = async (answer?: Parameters<typeof startReceiver>[0]) => {
  const started = await startReceiver(answer);
  cleanup.push(started.close);
  return started;
};

const addHook = async (orgId: string, target: Receiver): Promise<Webhook> => {
  const hook: Webhook = {
    id: newWebhookId(),
    orgId,
    url: target.url(),
    description: null,
    events: ['asset.status-updated'],
    headers: undefined,
    enabled: true,
    createdAt: new Date().toISOString(),
    sealedSecret: await sealer.seal(SECRET),
  };
  await store.create(hook);
  return hook;
};

/** Records a debug.test delivery for the webhook, as the test route does. */
const record = async (hook: Webhook, nonce: string): Promise<Delivery> =>
  (await store.createDelivery(hook, testEvent(Date.now(), nonce), Date.now())) as Delivery;

const deliveryOf = async (hook: Webhook, id: string) =>
  (await store.listDeliveries(hook.id, 100)).deliveries.find((delivery) => delivery.id === id);

const finished = async (hook: Webhook, ids: string[]) => {
  for (;;) {
    const { deliveries } = await store.listDeliveries(hook.id, 100);
    const done = deliveries.filter((d) => ids.includes(d.id) && (d.status === 'SUCCESS' || d.status === 'FAILURE'));
    if (done.length === ids.length) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const workers = (options: { timeoutMs: number; backoffBaseMs: number }): Dispatcher => {
  const dispatcher = startLocalWebhooks({
    db: table.db,
    tableName: table.tableName,
    sealer,
    policy: { allowLoopback: true },
    pollMs: 50,
    recoverEveryMs: 100,
    onError: () => undefined,
    ...options,
  });
  cleanup.push(() => dispatcher.stop());
  return dispatcher;
};

describe('webhook delivery under failing receivers', () => {
  it('retries with growing gaps to SUCCESS, gives up after 4 attempts, and delays no other organization', async () => {
    const flaky = await receiver((_, index) => (index < 2 ? 500 : 200));
    const dead = await receiver(() => 'hang');
    const healthy = await receiver(() => 200);
    const flakyHook = await addHook('acme', flaky);
    const deadHook = await addHook('acme', dead);
    const healthyHook = await addHook('globex', healthy);
    const dispatcher = workers({ timeoutMs: 300, backoffBaseMs: 600 });

    const retried = await record(flakyHook, 'flaky');
    const abandoned = await record(deadHook, 'dead');
    dispatcher.queue.enqueue(retried);
    dispatcher.queue.enqueue(abandoned);
    await flaky.waitFor(1);
    await dead.waitFor(1);
    const other = await record(healthyHook, 'healthy');
    dispatcher.queue.enqueue(other);
    await healthy.waitFor(1);
    const healthyAt = healthy.received[0]?.at as number;
    await finished(flakyHook, [retried.id]);
    await finished(deadHook, [abandoned.id]);

    const flakyTimes = flaky.received.map((request) => request.at);
    const gaps = [
      (flakyTimes[1] as number) - (flakyTimes[0] as number),
      (flakyTimes[2] as number) - (flakyTimes[1] as number),
    ];
    expect(flaky.received).toHaveLength(3);
    expect(gaps[1]).toBeGreaterThan(gaps[0] as number);
    expect(await deliveryOf(flakyHook, retried.id)).toMatchObject({
      status: 'SUCCESS',
      attempts: 3,
      responseStatus: 200,
    });
    expect(dead.received).toHaveLength(4);
    expect(await deliveryOf(deadHook, abandoned.id)).toMatchObject({
      status: 'FAILURE',
      attempts: 4,
      responseStatus: null,
    });
    expect(new Set([...flaky.received, ...dead.received].map((r) => r.headers['x-chainpatrol-event-id'])).size).toBe(2);
    // The other organization's event arrived before either failing receiver had its last attempt.
    expect(healthyAt).toBeLessThan(flakyTimes[2] as number);
    expect(healthyAt).toBeLessThan(dead.received[3]?.at as number);
    expect(await deliveryOf(healthyHook, other.id)).toMatchObject({ status: 'SUCCESS', attempts: 1 });
    await dispatcher.stop();
  });

  it('sends again, with the same event id, what a worker killed between send and record had sent; loses nothing', async () => {
    let child: ChildProcess | undefined;
    const target = await receiver((_, index) => {
      if (index === 0) child?.kill('SIGKILL');
      return 200;
    });
    const hook = await addHook('initech', target);
    const recorded: Delivery[] = [];
    for (let i = 0; i < 5; i++) recorded.push(await record(hook, `crash-${i}`));

    child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/webhook-worker.ts'], {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: table.endpoint,
        TABLE_NAME: table.tableName,
        WEBHOOK_SECRETS_KEY_FILE: keyFile,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    await target.waitFor(1);
    await exited;
    const killedId = target.received[0]?.headers['x-chainpatrol-event-id'];
    const leftBehind = (await store.listDeliveries(hook.id, 100)).deliveries.find((d) => d.eventId === killedId);
    workers({ timeoutMs: 500, backoffBaseMs: 100 });
    await finished(
      hook,
      recorded.map((delivery) => delivery.id),
    );

    expect(leftBehind).toMatchObject({ status: 'IN_PROGRESS', attempts: 1 });
    const ids = target.received.map((request) => request.headers['x-chainpatrol-event-id']);
    expect(ids.filter((id) => id === killedId)).toHaveLength(2);
    expect(new Set(ids)).toEqual(new Set(recorded.map((delivery) => delivery.eventId)));
    for (const request of target.received) {
      expect(verifySignature(SECRET, request.body, request.headers['x-chainpatrol-signature'] as string)).toBe(true);
    }
    const after = (await store.listDeliveries(hook.id, 100)).deliveries;
    expect(after.map((d) => d.status)).toEqual(Array(5).fill('SUCCESS'));
    expect(after.find((d) => d.eventId === killedId)?.attempts).toBe(2);
    expect(await store.openDeliveries(hook.id)).toEqual([]);
  });
});
