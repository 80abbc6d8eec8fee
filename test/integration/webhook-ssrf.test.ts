import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { type Delivery, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { URL_REFUSED, type Webhook } from '../../shared/domain/webhooks/webhooks.ts';
import { testEvent } from '../../shared/webhooks/dispatch.ts';
import { createWebhook, type ManageDeps } from '../../shared/webhooks/manage.ts';
import { sendWebhook } from '../../shared/webhooks/sender.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('webhook-ssrf');
const sealer = localSealer(join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key'));
const store = webhookRepository(table.db, table.tableName);
const receiver = await startReceiver();
afterAll(() => receiver.close());

/** A name server the test controls: what each name resolves to, changed at will. */
const names = new Map<string, string[]>([
  ['hooks.example.com', ['93.184.216.34']],
  ['internal.example.com', ['10.20.30.40']],
  ['rebind.example.com', ['93.184.216.34']],
]);
const resolve = async (host: string) => {
  const found = names.get(host);
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found;
};
const AWS = { allowLoopback: false };

const deps = (policy: { allowLoopback: boolean }): ManageDeps => ({
  hooks: store,
  deliveries: store,
  sealer,
  receivers: { policy, resolve },
  enqueue: () => undefined,
  now: Date.now,
});

describe('webhook receivers webhooks may not reach', () => {
  it.each([
    `http://127.0.0.1:${receiver.port}/hook`,
    'http://hooks.example.com/hook',
    'https://127.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/hook',
    `https://internal.example.com:${receiver.port}/hook`,
  ])('refuses %s at configuration in an AWS stage, storing nothing and sending nothing', async (url) => {
    const before = await store.list('acme');

    await expect(createWebhook(deps(AWS), 'acme', { url, events: ['asset.status-updated'] })).rejects.toThrow(
      URL_REFUSED,
    );

    expect(await store.list('acme')).toEqual(before);
    expect(receiver.connections()).toBe(0);
  });

  it('refuses at delivery a name that resolved to a public address at configuration and to loopback now', async () => {
    const url = `https://rebind.example.com:${receiver.port}/hook`;
    const created = await createWebhook(deps(AWS), 'acme', { url, events: ['asset.status-updated'] });
    names.set('rebind.example.com', ['127.0.0.1']);

    const sent = await sendWebhook(url, '{}', {}, { policy: AWS, resolve, timeoutMs: 1000 });

    expect(created.url).toBe(url);
    expect(sent).toEqual({ error: 'address refused' });
    expect(receiver.connections()).toBe(0);
  });

  it('refuses at delivery a name that now resolves to a private address even where loopback is allowed', async () => {
    names.set('rebind.example.com', ['93.184.216.34', '10.0.0.7']);

    const sent = await sendWebhook(
      `https://rebind.example.com:${receiver.port}/`,
      '{}',
      {},
      {
        policy: { allowLoopback: true },
        resolve,
        timeoutMs: 1000,
      },
    );

    expect(sent).toEqual({ error: 'address refused' });
    expect(receiver.connections()).toBe(0);
  });

  it('records every attempt of a delivery to a rebound name as failed, then FAILURE, having sent nothing', async () => {
    names.set('rebind.example.com', ['127.0.0.1']);
    const hook = (await store.list('acme')).find((candidate) => candidate.url.includes('rebind')) as Webhook;
    const workers = startLocalWebhooks({
      db: table.db,
      tableName: table.tableName,
      sealer,
      policy: AWS,
      resolve,
      backoffBaseMs: 10,
      timeoutMs: 500,
      pollMs: 50,
      onError: () => undefined,
    });
    const delivery = (await store.createDelivery(hook, testEvent(Date.now(), 'rebind'), Date.now())) as Delivery;
    workers.queue.enqueue(delivery);
    await workers.queue.idle();
    await workers.stop();

    const [logged] = (await store.listDeliveries(hook.id, 10)).deliveries;
    expect(logged).toMatchObject({ id: delivery.id, status: 'FAILURE', attempts: 4, responseStatus: null });
    expect(receiver.connections()).toBe(0);
  });
});
