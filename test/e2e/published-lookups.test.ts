import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { applyMessage } from '../../shared/domain/lifecycle/activity.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { eventually } from '../fixtures/eventually.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('e2e-published-lookups');
const keyFile = join(mkdtempSync(join(tmpdir(), 'published-lookups-')), 'webhook-secrets.key');
process.env.WEBHOOK_SECRETS_KEY_FILE = keyFile;
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

const ACME = 'acme-published-lookups-key-0123456789';
const GLOBEX = 'globex-published-lookups-key-0123456789';
const BLOCKED = 'published-lookups-phish.xyz';
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
/** A threat as an ingest sends it: blocking, no report named. */
const IMPORTED = {
  organization: 'acme',
  kind: 'threat',
  id: 't-imported',
  content: BLOCKED,
  assetType: 'URL',
  status: 'BLOCKED',
  createdAt: new Date().toISOString(),
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme' },
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

/** A call as a client makes it; every answer is checked against the published description. */
const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await response.text());
  const match = matchRoute(method, path);
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, body: parsed };
};

describe('POST /asset/parse through the local gateway', () => {
  it('answers the published {content, submittedContent, type} for content, normalized by the glossary rules', async () => {
    const sent = 'https://User:pw@Published-Lookups-Phish.XYZ:8443/Claim/?ref=1#top';

    const parsed = await call('POST', '/asset/parse', GLOBEX, { content: sent });

    expect(parsed).toEqual({
      status: 200,
      body: { content: 'published-lookups-phish.xyz/Claim', submittedContent: sent, type: 'URL' },
    });
  });

  it('answers null for content no asset type fits, and keeps the extraction of a text', async () => {
    const none = await call('POST', '/asset/parse', GLOBEX, { content: 'just some words' });
    const text = await call('POST', '/asset/parse', GLOBEX, { text: 'see hxxps://published-lookups-phish[.]xyz now' });

    expect(none).toEqual({ status: 200, body: null });
    expect(text).toEqual({
      status: 200,
      body: { assets: [{ content: 'published-lookups-phish.xyz', type: 'URL', start: 4, end: 41 }] },
    });
  });
});

describe('a block imported without a report, as its consumers and connectors see it', () => {
  it('lists prefix sync and then the webhook that delivered the block in blockedBy, oldest first', async () => {
    const hook = await call('POST', '/webhook/config', ACME, { url: receiver.url(), events: ['asset.status-updated'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const imported = JSON.stringify(IMPORTED);

    await applyMessage(suffixes, activityRepository(table.db, table.tableName), imported);
    await receiver.waitFor(1);
    const search = await eventually(
      async () => {
        const found = await call('POST', '/asset/search', ACME, { content: BLOCKED });
        expect(found.body.blockedBy).toHaveLength(2);
        return found;
      },
      { tries: 100, intervalMs: 100 },
    );

    // The changelog hands a change out once its settle window has passed.
    const change = await eventually(
      async () => {
        const changes = await call('POST', '/asset/changelog', ACME, { type: 'URL' });
        const found = changes.body.changes.find((entry: { content: string }) => entry.content === BLOCKED);
        expect(found).toBeDefined();
        return found as { changedAt: string };
      },
      { tries: 100, intervalMs: 100 },
    );
    expect(search.body.blockedBy).toEqual([
      { consumer: 'blocklist', name: 'Prefix sync', consumedAt: change.changedAt },
      { consumer: 'webhook', name: 'Webhooks', consumedAt: expect.any(String) },
    ]);
    expect(search.body.blockedBy[1].consumedAt >= change.changedAt).toBe(true);
    expect(Date.parse(search.body.blockedBy[1].consumedAt)).toBeLessThanOrEqual(Date.now());
  });

  it('keeps the time the block began when a later change only watchlists the content', async () => {
    const before = await call('POST', '/asset/search', ACME, { content: BLOCKED });
    const watched = JSON.stringify({
      ...IMPORTED,
      watchlisted: true,
      updatedAt: new Date(Date.now() + 1).toISOString(),
    });

    await applyMessage(suffixes, activityRepository(table.db, table.tableName), watched);
    const after = await eventually(
      async () => {
        const found = await call('POST', '/asset/search', ACME, { content: BLOCKED });
        expect(found.body.asset.watchStatus).toBe('ENABLED');
        return found;
      },
      { tries: 100, intervalMs: 100 },
    );

    expect(after.body.asset.updatedAt > before.body.blockedBy[0].consumedAt).toBe(true);
    expect(after.body.blockedBy).toEqual(before.body.blockedBy);
  });

  it('shows another organization prefix sync alone: its webhooks never took the block', async () => {
    const search = await call('POST', '/asset/search', GLOBEX, { content: BLOCKED });

    expect(search.body.blockedBy).toEqual([
      { consumer: 'blocklist', name: 'Prefix sync', consumedAt: expect.any(String) },
    ]);
  });

  it('names the report the import created in /asset/details, whose reportUrl answers 200 without a key', async () => {
    const details = await call('POST', '/asset/details', GLOBEX, { content: `https://${BLOCKED}/claim` });
    const page = await fetch(details.body.reportUrl);

    expect(details.body).toEqual({
      status: 'BLOCKED',
      reason: 'report',
      reportId: expect.any(Number),
      reportUrl: `${base}/reports/${details.body.reportId}`,
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(BLOCKED);
  });
});
