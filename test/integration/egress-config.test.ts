import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHandler as createDetectionConfig } from '../../functions/detections/configs-create.ts';
import { createHandler as updateDetectionConfig } from '../../functions/detections/configs-update.ts';
import { createHandler as validateDetectionConfigs } from '../../functions/detections/configs-validate.ts';
import { createHandler as createWebhook } from '../../functions/webhooks/create.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { cachedKeyResolver } from '../../shared/domain/account/api-keys.ts';
import { URL_REFUSED } from '../../shared/domain/webhooks/webhooks.ts';
import { type EgressPolicy, refusalOf } from '../../shared/egress/index.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * URLs refused when they are configured, through the real handlers over DynamoDB Local, with
 * the AWS stage's policy and a name server the test controls.
 */
const table = await createTestTable('egress-config');
const KEY = 'egress-config-acme-key-0123456789';
await seed(table.db, table.tableName, {
  organizations: [{ slug: 'acme', name: 'Acme' }],
  apiKeys: [{ key: KEY, organization: 'acme' }],
});
const AWS: EgressPolicy = { allowLoopback: false };
const dns = new Map<string, string[]>([
  ['ct.example.net', ['93.184.216.34']],
  ['ct.internal.example', ['10.20.30.40']],
]);
const resolve = async (name: string) => {
  const found = dns.get(name);
  if (found === undefined) throw new Error(`ENOTFOUND ${name}`);
  return found;
};
const keys = cachedKeyResolver(apiKeyRepository(table.db, table.tableName));
const directory = directoryRepository(table.db, table.tableName);
const detections = detectionRepository(table.db, table.tableName);
const hooks = webhookRepository(table.db, table.tableName);
const NOW = Date.parse('2026-05-01T00:00:00Z');
const configDeps = {
  keys,
  now: () => NOW,
  store: detections,
  directory,
  outbound: (url: string) => refusalOf(url, AWS, resolve),
};
const createConfig = createDetectionConfig(configDeps);
const updateConfig = updateDetectionConfig(configDeps);
const validateConfigs = validateDetectionConfigs({ ...configDeps, runNow: async () => undefined });
const webhookCreate = createWebhook({
  keys,
  directory,
  hooks,
  sealer: localSealer(join(mkdtempSync(join(tmpdir(), 'egress-config-')), 'webhook-secrets.key')),
  receivers: { policy: AWS, resolve },
  now: () => NOW,
});
const post = (path: string, body: unknown) => apiEvent({ method: 'POST', path, apiKey: KEY, body });
const issueOf = (message: string, path: string) => errorBody('BAD_REQUEST', message, { issues: [{ message, path }] });

describe('a CERTSTREAM config naming a log the service may not call', () => {
  it('is refused on create with 400 naming the log, and nothing is stored', async () => {
    const response = await call(
      createConfig,
      post('/detection/configs/create', {
        slug: 'acme',
        source: 'CERTSTREAM',
        config: { logs: ['https://127.0.0.1/'] },
      }),
    );

    const message = 'body.config.logs.0 must be a public https URL: 127.0.0.1 is not a public address';
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(issueOf(message, 'body.config.logs.0'));
    expect(await detections.listConfigs('acme')).toEqual([]);
  });

  it('is refused on create when a static-CT log’s monitoring prefix is not public, naming monitoringUrl', async () => {
    const response = await call(
      createConfig,
      post('/detection/configs/create', {
        slug: 'acme',
        source: 'CERTSTREAM',
        config: { logs: ['https://ct.example.net/log', { monitoringUrl: 'https://127.0.0.1/tiles/', kind: 'static' }] },
      }),
    );

    const message = 'body.config.logs.1.monitoringUrl must be a public https URL: 127.0.0.1 is not a public address';
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(issueOf(message, 'body.config.logs.1.monitoringUrl'));
    expect(await detections.listConfigs('acme')).toEqual([]);
  });

  it('is refused on update when one of its logs resolves to a private address, and the stored config stays', async () => {
    const created = await call(
      createConfig,
      post('/detection/configs/create', {
        slug: 'acme',
        source: 'CERTSTREAM',
        config: { logs: ['https://ct.example.net/log'] },
      }),
    );
    const configId = (created.body as { id: number }).id;

    const response = await call(
      updateConfig,
      post('/detection/configs/update', {
        slug: 'acme',
        configId,
        config: { logs: ['https://ct.example.net/log', 'https://ct.internal.example/log'] },
      }),
    );

    const message =
      'body.config.logs.1 must be a public https URL: ct.internal.example resolves to 10.20.30.40, which is not allowed';
    expect(created.statusCode).toBe(200);
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(issueOf(message, 'body.config.logs.1'));
    expect((await detections.findConfig('acme', configId))?.config).toEqual({ logs: ['https://ct.example.net/log'] });
  });

  it('is refused on validate once its log name resolves to a loopback address, naming the config and the log', async () => {
    dns.set('ct.rebind.example', ['93.184.216.34']);
    const created = await call(
      createConfig,
      post('/detection/configs/create', {
        slug: 'acme',
        source: 'CERTSTREAM',
        config: { logs: ['https://ct.rebind.example/log'] },
      }),
    );
    const configId = (created.body as { id: number }).id;
    dns.set('ct.rebind.example', ['127.0.0.1']);

    const response = await call(validateConfigs, post('/detection/configs/validate', { slug: 'acme' }));

    const path = `configs.${configId}.config.logs.0`;
    const message = `${path} must be a public https URL: ct.rebind.example resolves to 127.0.0.1, which is not allowed`;
    expect(created.statusCode).toBe(200);
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(issueOf(message, path));
  });
});

describe('a webhook at an address the service may not call', () => {
  it.each(['https://[2002:a9fe:a9fe::1]/', 'https://[::ffff:0:a9fe:a9fe]/hook', 'https://[64:ff9b::7f00:1]/'])(
    'refuses %s with 400 and stores nothing',
    async (url) => {
      const response = await call(webhookCreate, post('/webhook/config', { url, events: ['asset.status-updated'] }));

      expect(response.statusCode).toBe(400);
      expect(response.body).toEqual(errorBody('BAD_REQUEST', URL_REFUSED));
      expect(await hooks.list('acme')).toEqual([]);
    },
  );
});
