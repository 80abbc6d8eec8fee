import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { permutations } from '../../shared/domain/detections/dnstwist.ts';
import { organizationIdOf } from '../../shared/domain/lifecycle/reports.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver, verifySignature } from '../fixtures/webhook-receiver.ts';

/*
 * `organization.threat-detection-added` through the local runtime: DNS_TWIST runs over a fixture
 * resolver record detections, and each new one reaches the organization's webhook once.
 */
const table = await createTestTable('e2e-detection-webhooks');
const dir = mkdtempSync(join(tmpdir(), 'detection-webhooks-'));
const keyFile = join(dir, 'webhook-secrets.key');
process.env.WEBHOOK_SECRETS_KEY_FILE = keyFile;
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

const ACME = 'acme-detection-hooks-key-0123456789';
const GLOBEX = 'globex-detection-hooks-key-0123456789';
const server = createGateway();
const receiver = await startReceiver();
const webhooks = startLocalWebhooks({
  db: table.db,
  tableName: table.tableName,
  sealer: localSealer(keyFile),
  policy: { allowLoopback: true },
  pollMs: 50,
  onError: (error) => console.error('WEBHOOK ERROR', error),
});
let base = '';
/** About 50 of the domain's lookalikes, spread over its permutation families, are registered. */
const registered = (domain: string) => {
  const all = permutations(suffixes, domain);
  const step = Math.ceil(all.length / 50);
  return all.filter((_, i) => i % step === 0).map((p) => p.domain);
};

beforeAll(async () => {
  writeFileSync(
    join(dir, 'dns.json'),
    JSON.stringify({ registered: [...registered('acme.com'), ...registered('acmepay.net')] }),
  );
  process.env.DETECTION_DNS_FIXTURE = join(dir, 'dns.json');
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet', includedTerms: ['acme', 'acmepay'] }],
      },
      { slug: 'globex', name: 'Globex' },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(async () => {
  await webhooks.stop();
  await receiver.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Config = { id: number; lastRunAt: string | null; lastResultCount: number | null };
const configOf = async (configId: number): Promise<Config> => {
  const listed = await call('POST', '/detection/configs/list', ACME, { slug: 'acme' });
  const all = (listed.body.sources as { configs: Config[] }[]).flatMap((group) => group.configs);
  return all.find((config) => config.id === configId) as Config;
};
/** Runs a config and waits (reading at most 2,000 times, 50 ms apart) until its run is recorded. */
const runAndWait = async (configId: number): Promise<Config> => {
  const before = await configOf(configId);
  const queued = await call('POST', '/detection/configs/run', ACME, { slug: 'acme', configId });
  expect(queued.status).toBe(200);
  for (let i = 0; i < 2000; i++) {
    const config = await configOf(configId);
    if (config.lastRunAt !== null && config.lastRunAt !== before.lastRunAt) return config;
    await pause(50);
  }
  throw new Error(`Run of config ${configId} did not finish`);
};
const detectionIds = async (): Promise<number[]> => {
  const ids: number[] = [];
  let cursor: number | undefined;
  do {
    const page = await call('POST', '/detection/list', ACME, { slug: 'acme', limit: 100, cursor });
    ids.push(...(page.body.detections as { id: number }[]).map((detection) => detection.id));
    cursor = page.body.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return ids;
};

describe('organization.threat-detection-added', () => {
  it('reaches the subscribed webhook once per new detection, as published, and a rerun adds none', async () => {
    const created = await call('POST', '/webhook/config', ACME, {
      url: receiver.url('/acme'),
      events: ['organization.threat-detection-added'],
    });
    const other = await call('POST', '/webhook/config', GLOBEX, {
      url: receiver.url('/globex'),
      events: ['organization.threat-detection-added'],
    });
    const first = await call('POST', '/detection/configs/create', ACME, {
      slug: 'acme',
      source: 'DNS_TWIST',
      config: { domains: ['acme.com'] },
    });
    const firstRun = await runAndWait(first.body.id);
    const firstIds = await detectionIds();
    await receiver.waitFor(firstIds.length);
    const rerun = await runAndWait(first.body.id);
    // A second config's detections come after anything the rerun could have made, on the same webhook.
    const second = await call('POST', '/detection/configs/create', ACME, {
      slug: 'acme',
      source: 'DNS_TWIST',
      config: { domains: ['acmepay.net'] },
    });
    const secondRun = await runAndWait(second.body.id);
    const allIds = await detectionIds();
    await receiver.waitFor(allIds.length);

    expect([created.status, other.status]).toEqual([200, 200]);
    expect(firstRun.lastResultCount).toBeGreaterThan(0);
    expect(rerun.lastResultCount).toBe(0);
    expect(secondRun.lastResultCount).toBeGreaterThan(0);
    expect(allIds).toHaveLength((firstRun.lastResultCount ?? 0) + (secondRun.lastResultCount ?? 0));
    expect(receiver.received).toHaveLength(allIds.length);
    const sent = receiver.received.map((request) => {
      const body = JSON.parse(request.body) as { created_at: string; data: { threat_detection_result_id: number } };
      expect(request.path).toBe('/acme');
      expect(request.body).toBe(
        `{"type":"organization.threat-detection-added","created_at":${JSON.stringify(body.created_at)},"data":{"organization_id":${organizationIdOf('acme')},"threat_detection_result_id":${body.data.threat_detection_result_id}}}`,
      );
      expect(
        verifySignature(created.body.secret, request.body, request.headers['x-chainpatrol-signature'] as string),
      ).toBe(true);
      return body.data.threat_detection_result_id;
    });
    expect([...sent].sort()).toEqual([...allIds].sort());
    expect(new Set(receiver.received.map((request) => request.headers['x-chainpatrol-event-id'])).size).toBe(
      allIds.length,
    );
  });
});
