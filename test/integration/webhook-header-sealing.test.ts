import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler as createWebhookHandler } from '../../functions/webhooks/create.ts';
import { createHandler as listWebhooksHandler } from '../../functions/webhooks/list.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { type Delivery, sealClearWebhookHeaders, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { Webhook } from '../../shared/domain/webhooks/webhooks.ts';
import { testEvent } from '../../shared/webhooks/dispatch.ts';
import { apiEvent, call } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';
import { type Receiver, startReceiver } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('webhook-header-sealing');
const sealer = localSealer(join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key'));
const store = webhookRepository(table.db, table.tableName);
const deps = {
  keys: cachedKeyResolver(apiKeyRepository(table.db, table.tableName)),
  directory: directoryRepository(table.db, table.tableName),
  hooks: store,
};
const createWebhook = createWebhookHandler({
  ...deps,
  sealer,
  receivers: { policy: { allowLoopback: true }, resolve: async () => ['127.0.0.1'] },
  now: Date.now,
});
const listWebhooks = listWebhooksHandler(deps);
const ACCESS_KEY = 'access-9c1f4e7a2b8d';
const GOOGLE_KEY = 'AIzaSy-goog-5e2a7c9d1f3b';

let receiver: Receiver;
const dispatcher = startLocalWebhooks({
  db: table.db,
  tableName: table.tableName,
  sealer,
  policy: { allowLoopback: true },
  pollMs: 50,
  recoverEveryMs: 100,
  onError: () => undefined,
});
beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  receiver = await startReceiver();
});
afterAll(async () => {
  await dispatcher.stop();
  await receiver.close();
});

const create = async (path: string, headers?: Record<string, string>) => {
  const body = { url: receiver.url(path), events: ['asset.status-updated'], ...(headers ? { headers } : {}) };
  return await call(createWebhook, apiEvent({ method: 'POST', path: '/webhook/config', apiKey: ACME_KEY, body }));
};

/** Sends a debug.test event to the webhook and answers the headers its delivery arrived with. */
const deliveredHeaders = async (hook: Webhook, nonce: string) => {
  const count = receiver.received.length;
  dispatcher.queue.enqueue((await store.createDelivery(hook, testEvent(Date.now(), nonce), Date.now())) as Delivery);
  await receiver.waitFor(count + 1);
  return receiver.received[count]?.headers;
};

const holdsInClear = (texts: string[], ...values: string[]) =>
  values.filter((value) => texts.some((text) => text.includes(value)));

describe('webhook header values at rest', () => {
  it('are sealed in the table, shown in no answer, and still sent with every delivery', async () => {
    const created = await create('/sealed', { 'X-Webhook-Access-Key': ACCESS_KEY, 'X-goog-api-key': GOOGLE_KEY });
    const listed = await call(listWebhooks, apiEvent({ path: '/webhook/config', apiKey: ACME_KEY }));
    const hook = (await store.find('acme', (created.body as { id: string }).id)) as Webhook;

    const headers = await deliveredHeaders(hook, 'sealed');

    expect(created.statusCode).toBe(200);
    expect(holdsInClear(await tableSnapshot(table), ACCESS_KEY, GOOGLE_KEY)).toEqual([]);
    expect(holdsInClear([JSON.stringify(created.body), JSON.stringify(listed.body)], ACCESS_KEY, GOOGLE_KEY)).toEqual(
      [],
    );
    expect(headers).toMatchObject({ 'x-webhook-access-key': ACCESS_KEY, 'x-goog-api-key': GOOGLE_KEY });
  });

  it('are still sent from a webhook stored with clear values, and sealed by the migration', async () => {
    const created = await create('/legacy');
    const id = (created.body as { id: string }).id;
    const raw = (await tableSnapshot(table)).map((text) => JSON.parse(text) as Record<string, unknown>);
    const item = raw.find((entry) => entry.entity === 'WEBHOOK' && entry.id === id) as Record<string, unknown>;
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET headers = :clear',
        ExpressionAttributeValues: { ':clear': { 'X-Webhook-Access-Key': ACCESS_KEY } },
      }),
    );
    const before = await deliveredHeaders((await store.find('acme', id)) as Webhook, 'legacy-before');

    const first = await sealClearWebhookHeaders(table.db, table.tableName, sealer);
    const again = await sealClearWebhookHeaders(table.db, table.tableName, sealer);
    const after = await deliveredHeaders((await store.find('acme', id)) as Webhook, 'legacy-after');

    expect(before).toMatchObject({ 'x-webhook-access-key': ACCESS_KEY });
    expect(first).toEqual({ webhooks: 2, rewritten: 1, changedMeanwhile: 0 });
    expect(again).toEqual({ webhooks: 2, rewritten: 0, changedMeanwhile: 0 });
    expect(holdsInClear(await tableSnapshot(table), ACCESS_KEY)).toEqual([]);
    expect(after).toMatchObject({ 'x-webhook-access-key': ACCESS_KEY });
  });
});
