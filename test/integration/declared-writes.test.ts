import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { readSampleEvent } from '../../infra/local/sample-event.ts';
import { partitionsWritten } from '../../infra/local/write-guard.ts';
import { ROUTES, WORKER_WRITES } from '../../infra/routes.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { dynamoLease } from '../../shared/db/lease-repository.ts';
import { inProcessScansSettled } from '../../shared/db/scan-queue.ts';
import { fileFeedStore } from '../../shared/db/verdict-feed-store.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { assetRecordsReader, changeLogReader, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import * as detectionRuntime from '../../shared/detection-runtime.ts';
import { addAssets, BULK_ADD_ABANDONED_AFTER_MS } from '../../shared/domain/allowlist/assets.ts';
import { scheduleDueRuns } from '../../shared/domain/detections/index.ts';
import { feedCheckSamples } from '../../shared/domain/detections/sample-feed.ts';
import { SCHEDULE_CLASSES } from '../../shared/domain/detections/schedules.ts';
import type { ActivityRecord } from '../../shared/domain/lifecycle/activity.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import { verdictPublisher } from '../../shared/domain/verdict-feed/index.ts';
import { systemResolver } from '../../shared/egress/index.ts';
import { sendWebhook } from '../../shared/webhooks/sender.ts';
import { logEntry } from '../fixtures/certificates.ts';
import { crashingClient } from '../fixtures/crashing-client.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver } from '../fixtures/webhook-receiver.ts';
import { asWorker } from '../fixtures/workers.ts';

/**
 * Each function that writes is driven down every path that writes (the rare ones too: an asset
 * leaving a deleted group whose ungrouping is unfinished, a report that rolls back an abandoned one
 * whose proposal was reviewed meanwhile, the review budget), and the partitions it wrote must be
 * exactly the ones it declares: none missing (the guard would refuse it) and none declared in vain.
 */
const table = await createTestTable('declared-writes');
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
process.env.WEBHOOK_SECRETS_KEY_FILE = join(mkdtempSync(join(tmpdir(), 'declared-writes-')), 'webhook-secrets.key');
// After the table: the functions' modules build their stores over the configured table as they load.
const { createHandler: ingestHandler } = await import('../../functions/activity/ingest.ts');
const { createHandler: resumeHandler } = await import('../../functions/maintenance/resume-writes.ts');
const ACME = 'acme-key-0123456789abcdef';
const MEMBER = 'member-key-0123456789abcdef';
const server = createGateway();
let base = '';

const declared = (name: string) => {
  const route = ROUTES.find((candidate) => candidate.name === name);
  return new Set(route ? route.writes : WORKER_WRITES[name as keyof typeof WORKER_WRITES]);
};

beforeAll(async () => {
  process.env.REVIEW_DAILY_LIMIT = '100';
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'], brands: [{ slug: 'acme-wallet', name: 'W' }] },
    ],
    users: [{ id: 'u-1', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: MEMBER, user: 'u-1' },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(async () => {
  delete process.env.REVIEW_DAILY_LIMIT;
  await new Promise((resolve) => server.close(resolve));
});

const send = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the bodies of several routes, read field by field
  const parsed = (await response.json()) as any;
  expect(response.status, JSON.stringify(parsed)).toBe(200);
  return parsed;
};

/** Deletes group `id` as its route does, but stops before the first ungrouping step: its removal is left unfinished. */
const deleteInterrupted = async (id: number) => {
  const { client } = crashingClient(table.endpoint, 5, 'before');
  await assetGroupRepository(client, table.tableName).remove('acme', id);
};

/** A report of 100 assets interrupted after its first transaction, 10 minutes ago: incomplete, 49 proposals pending. */
const abandonReport = async (prefix: string) => {
  const { client } = crashingClient(table.endpoint, 3, 'before');
  const deps = {
    store: activityRepository(client, table.tableName),
    verdicts: checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 }),
    directory: directoryRepository(table.db, table.tableName),
    ignoredHosts: [],
    suffixes,
  };
  const assets = Array.from({ length: 100 }, (_, i) => ({
    content: `${prefix}-${i}.example`,
    status: 'BLOCKED' as const,
  }));
  const now = new Date(Date.now() - 10 * 60_000).toISOString();
  await expect(createReport(deps, 'acme', { title: 'Abandoned', description: 'd', assets }, { now })).rejects.toThrow(
    'crash before call 3',
  );
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      ConsistentRead: true,
      FilterExpression: 'entity = :activity AND kind = :threat AND begins_with(content, :prefix)',
      ExpressionAttributeValues: { ':activity': 'ACTIVITY', ':threat': 'threat', ':prefix': `${prefix}-` },
    }),
  );
  return Items as (ActivityRecord & { kind: 'threat'; assetId: number })[];
};

/** A bulk add of 60 assets (several transactions) whose request stops after its commit point: the sweeper publishes it. */
const interruptBulkAdd = async () => {
  const { client } = crashingClient(table.endpoint, 6, 'before');
  const inputs = Array.from({ length: 60 }, (_, i) => ({ content: `https://bulk-${i}.acme.example` }));
  await expect(
    addAssets(
      suffixes,
      assetRepository(client, table.tableName),
      assetGroupRepository(client, table.tableName),
      'acme',
      inputs,
    ),
  ).rejects.toThrow('crash before call 6');
};

const approve = (proposal: { id: string; assetId: number }) =>
  send('POST', `/organization/proposals/${proposal.id}/review`, {
    assetId: proposal.assetId,
    decision: 'APPROVE',
    label: 'General Phishing',
  });

describe('the partitions each function writes, driven down every path that writes', () => {
  const groups: Record<string, number> = {};
  const assets: Record<string, number> = {};

  it('create-asset-group: exactly what it declares', async () => {
    for (const name of ['Doomed', 'Kept', 'Interrupted', 'Swept']) {
      groups[name] = (await send('POST', '/organization/asset-groups', { name })).id;
    }

    expect(partitionsWritten('create-asset-group')).toEqual(declared('create-asset-group'));
  });

  it('update-asset-group: exactly what it declares', async () => {
    await send('PATCH', `/organization/asset-groups/${groups.Kept}`, { name: 'Kept (renamed)' });

    expect(partitionsWritten('update-asset-group')).toEqual(declared('update-asset-group'));
  });

  it('create-assets: exactly what it declares', async () => {
    const added = await send('POST', '/organization/assets', {
      assets: [
        { content: 'https://doomed.acme.example', groupId: groups.Doomed },
        { content: 'https://moved.acme.example', groupId: groups.Interrupted },
        { content: 'https://removed.acme.example', groupId: groups.Interrupted },
        { content: 'https://swept.acme.example', groupId: groups.Swept },
      ],
    });
    for (const result of added.results) assets[new URL(result.content).hostname.split('.')[0] as string] = result.id;

    expect(partitionsWritten('create-assets')).toEqual(declared('create-assets'));
  });

  it('delete-asset-group: exactly what it declares', async () => {
    await send('DELETE', `/organization/asset-groups/${groups.Doomed}`);

    expect(partitionsWritten('delete-asset-group')).toEqual(declared('delete-asset-group'));
  });

  it('update-asset: exactly what it declares, moving an asset out of a deleted group whose ungrouping is unfinished', async () => {
    await deleteInterrupted(groups.Interrupted as number);

    await send('PATCH', `/organization/assets/${assets.moved}`, { groupId: groups.Kept });

    expect(partitionsWritten('update-asset')).toEqual(declared('update-asset'));
  });

  it('delete-asset: exactly what it declares, on an allowlisted asset of that deleted group', async () => {
    await send('DELETE', `/organization/assets/${assets.removed}`);

    expect(partitionsWritten('delete-asset')).toEqual(declared('delete-asset'));
  });

  it('create-report and review-proposal: exactly what they declare, the report rolling back an abandoned one whose proposal was approved', async () => {
    await send('POST', '/report/create', {
      title: 'Phishing',
      description: 'Two pages',
      assets: ['https://login-acme.example/a', 'https://login-acme.example/b'].map((content) => ({
        content,
        status: 'BLOCKED',
      })),
    });
    const [reviewed, pending] = await abandonReport('abandoned-by-request');
    await approve(reviewed as { id: string; assetId: number });

    await send('POST', '/report/create', {
      title: 'Again',
      description: 'One of the abandoned report',
      assets: [{ content: pending?.content, status: 'BLOCKED' }],
    });

    expect(partitionsWritten('create-report')).toEqual(declared('create-report'));
    expect(partitionsWritten('review-proposal')).toEqual(declared('review-proposal'));
  });

  it('taxii-add-objects: exactly what it declares, its report rolling back an abandoned one whose proposal was approved', async () => {
    const [reviewed, pending] = await abandonReport('abandoned-by-taxii');
    await approve(reviewed as { id: string; assetId: number });
    const listed = await fetch(`${base}/taxii2/api/collections/`, { headers: { 'X-API-KEY': ACME } });
    const { collections } = (await listed.json()) as { collections: { id: string; title: string }[] };
    const submissions = collections.find((collection) => collection.title === 'submissions')?.id;
    const indicator = {
      type: 'indicator',
      spec_version: '2.1',
      id: 'indicator--7a1c9e52-3b4d-4f6a-8c2e-1d0f9b8a7c65',
      created: '2026-05-01T00:00:00.000Z',
      modified: '2026-05-01T00:00:00.000Z',
      pattern: `[domain-name:value = '${pending?.content}']`,
      pattern_type: 'stix',
      valid_from: '2026-05-01T00:00:00.000Z',
    };

    const response = await fetch(`${base}/taxii2/api/collections/${submissions}/objects/`, {
      method: 'POST',
      headers: { 'X-API-KEY': ACME },
      body: JSON.stringify({ objects: [indicator] }),
    });

    expect(await response.json()).toMatchObject({ success_count: 1 });
    expect(partitionsWritten('taxii-add-objects')).toEqual(declared('taxii-add-objects'));
  });

  it('ingest-activity: exactly what it declares', async () => {
    const ingest = asWorker(
      'ingest-activity',
      ingestHandler({
        suffixes,
        store: activityRepository(table.db, table.tableName),
        deadLetters: { put: async () => undefined },
      }),
    );
    const event = readSampleEvent('events/ingest-sqs.json') as SQSEvent;

    expect(await ingest(event)).toEqual({ batchItemFailures: [] });
    expect(partitionsWritten('ingest-activity')).toEqual(declared('ingest-activity'));
  });

  it('resume-interrupted-writes: exactly what it declares, rolling back an abandoned report and ungrouping a deleted group', async () => {
    await deleteInterrupted(groups.Swept as number);
    const [reviewed] = await abandonReport('abandoned-then-swept');
    await interruptBulkAdd();
    await approve(reviewed as { id: string; assetId: number });
    const resume = asWorker(
      'resume-interrupted-writes',
      resumeHandler({
        suffixes,
        groups: assetGroupRepository(table.db, table.tableName),
        reports: activityRepository(table.db, table.tableName),
        assets: assetRepository(table.db, table.tableName),
        now: () => Date.now() + BULK_ADD_ABANDONED_AFTER_MS + 1_000,
      }),
    );

    expect(await resume({}, { getRemainingTimeInMillis: () => 55_000 })).toEqual({
      abandonedReports: 1,
      bulkAdds: { published: 1, undone: 0 },
      finished: 2, // the swept group's, and the interrupted one's: nothing left in it, its removal item goes
      unfinished: 0,
    });
    expect(partitionsWritten('resume-interrupted-writes')).toEqual(declared('resume-interrupted-writes'));
  });

  it('create-dispute, unblock-asset, submit-assets, start-scan and run-scans: exactly what they declare', async () => {
    await seed(table.db, table.tableName, {
      organizations: [{ slug: 'globex', name: 'Globex' }],
      activity: [
        {
          organization: 'acme',
          kind: 'threat',
          id: 't-own',
          content: 'own-block.example',
          assetType: 'URL',
          status: 'BLOCKED',
          createdAt: '2026-01-05T10:00:00Z',
        },
        {
          organization: 'globex',
          kind: 'threat',
          id: 't-disputed',
          content: 'disputed-block.example',
          assetType: 'URL',
          status: 'BLOCKED',
          createdAt: '2026-01-05T10:00:00Z',
        },
      ],
    });
    // A scan whose report finds an abandoned one holding its content's claim, one of whose proposals was approved.
    const [reviewed, pending] = await abandonReport('acme-wallet-airdrop-claim');
    await approve(reviewed as { id: string; assetId: number });

    await send('POST', '/dispute/create', { content: 'disputed-block.example', email: 'owner@example.com' });
    expect(await send('POST', '/asset/unblock', { content: 'own-block.example' })).toMatchObject({
      status: 'UNBLOCKED',
    });
    expect(await send('POST', '/asset/unblock', { content: 'disputed-block.example' })).toMatchObject({
      status: 'DISPUTED',
    });
    // Its organization takes EXTERNAL detections: the scan of a submission records one.
    await send('POST', '/detection/configs/create', { slug: 'acme', source: 'EXTERNAL', config: {} });
    await send('POST', '/asset/submit', { assets: ['plain-shop.example'], organizationSlug: 'acme' });
    const { scanId } = await send('POST', '/asset/scan', { content: pending?.content, organizationSlug: 'acme' });
    let scan = await send('POST', '/scan/result', { scanId });
    for (let i = 0; i < 200 && scan.status === 'PENDING'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      scan = await send('POST', '/scan/result', { scanId });
    }

    await inProcessScansSettled();

    expect(scan.result.verdict).toBe('MALICIOUS');
    for (const name of ['create-dispute', 'unblock-asset', 'submit-assets', 'start-scan', 'run-scans']) {
      expect(partitionsWritten(name), name).toEqual(declared(name));
    }
  });

  it('update-current-user: exactly what it declares', async () => {
    const response = await fetch(`${base}/user/me/update`, {
      method: 'POST',
      headers: { 'X-API-KEY': MEMBER },
      body: JSON.stringify({ fullName: 'Ana Lima' }),
    });

    expect(response.status).toBe(200);
    expect(partitionsWritten('update-current-user')).toEqual(declared('update-current-user'));
  });

  it('the webhook routes and workers: exactly what they declare, from creation to a delivery recorded', async () => {
    const receiver = await startReceiver();
    const store = webhookRepository(table.db, table.tableName);
    const { createHandler: generateHandler } = await import('../../functions/webhooks/generate.ts');
    const { createHandler: deliverHandler } = await import('../../functions/webhooks/deliver.ts');
    const created = await send('POST', '/webhook/config', { url: receiver.url(), events: ['asset.status-updated'] });
    await send('PATCH', `/webhook/config/${created.id}`, { description: 'SIEM' });
    const tested = await send('POST', `/webhook/config/${created.id}/test`);
    await send('POST', '/organization/assets', { assets: [{ content: 'https://webhooks-declared.example/' }] });
    const queued: { hookId: string; sort: string }[] = [];
    const generate = asWorker(
      'generate-webhook-events',
      generateHandler({
        hooks: store,
        deliveries: store,
        open: store,
        log: changeLogReader(table.db, table.tableName),
        records: assetRecordsReader(table.db, table.tableName),
        now: Date.now,
        enqueue: (delivery) => {
          queued.push({ hookId: delivery.hookId, sort: delivery.sort });
        },
      }),
    );
    // Two polls: the first records the deliveries, the second moves the saved position past them.
    let remaining = 13_000;
    await generate({}, { getRemainingTimeInMillis: () => (remaining -= 1000) });
    const deliver = asWorker(
      'deliver-webhooks',
      deliverHandler({
        hooks: store,
        deliveries: store,
        sealer: localSealer(process.env.WEBHOOK_SECRETS_KEY_FILE as string),
        send: (url, body, headers) =>
          sendWebhook(url, body, headers, {
            policy: { allowLoopback: true },
            resolve: systemResolver,
            timeoutMs: 5000,
          }),
        now: Date.now,
        backoffBaseMs: 1000,
        leaseMs: 11_000,
        sendBudgetMs: 5000,
        retryLater: async () => undefined,
      }),
    );
    const records = queued.map((message, i) => ({ messageId: String(i), body: JSON.stringify(message) }));

    expect(await deliver({ Records: records } as unknown as SQSEvent)).toEqual({ batchItemFailures: [] });
    expect(queued.map((message) => message.sort)).toContainEqual(expect.stringContaining(tested.id ? '#evt_' : ''));
    await send('DELETE', `/webhook/config/${created.id}`);
    await receiver.close();
    for (const name of ['create-webhook', 'update-webhook', 'test-webhook', 'delete-webhook']) {
      expect(partitionsWritten(name), name).toEqual(declared(name));
    }
    expect(partitionsWritten('generate-webhook-events')).toEqual(declared('generate-webhook-events'));
    expect(partitionsWritten('deliver-webhooks')).toEqual(declared('deliver-webhooks'));
  });

  it('the detection routes: exactly what they declare, auto-reports that roll back abandoned reports included', async () => {
    await seed(table.db, table.tableName, {
      organizations: [
        {
          slug: 'acme',
          name: 'Acme',
          featureFlags: ['brands-metrics'],
          brands: [
            { slug: 'acme-wallet', name: 'W' },
            { slug: 'zeta', name: 'Zeta', includedTerms: ['zeta'] },
          ],
        },
      ],
    });
    await table.db.send(
      new PutCommand({ TableName: table.tableName, Item: { ...key.detectionSettings('acme'), autoReport: true } }),
    );
    const [reviewedA, pendingA] = await abandonReport('acme-login-detect');
    await approve(reviewedA as { id: string; assetId: number });
    const [reviewedB, pendingB] = await abandonReport('zeta-login-detect');
    await approve(reviewedB as { id: string; assetId: number });
    const dir = mkdtempSync(join(tmpdir(), 'declared-ct-'));
    writeFileSync(
      join(dir, 'ct.json'),
      JSON.stringify({
        entries: [logEntry([pendingA?.content as string], 1), logEntry([pendingB?.content as string], 2, true)],
      }),
    );
    process.env.DETECTION_CT_RECORDING = join(dir, 'ct.json');
    const brands = (await send('GET', '/organization/brands')).brands as { id: number; slug: string }[];
    const brandOf = (slug: string) => brands.find((brand) => brand.slug === slug)?.id;
    const logs = ['https://ct.example.net/log'];

    const a = await send('POST', '/detection/configs/create', {
      slug: 'acme',
      source: 'CERTSTREAM',
      brandId: brandOf('acme-wallet'),
      config: { logs },
    });
    await send('POST', '/detection/configs/update', { slug: 'acme', configId: a.id, title: 'Acme names' });
    await send('POST', '/detection/configs/run', { slug: 'acme', configId: a.id });
    for (let i = 0; i < 400; i++) {
      const listed = await send('POST', '/detection/configs/list', { slug: 'acme' });
      if (listed.sources[0]?.configs[0]?.lastRunAt) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await send('POST', '/detection/configs/create', {
      slug: 'acme',
      source: 'CERTSTREAM',
      brandId: brandOf('zeta'),
      config: { logs },
    });
    const validated = await send('POST', '/detection/configs/validate', {
      slug: 'acme',
      source: 'CERTSTREAM',
      run: true,
    });
    await send('POST', '/detection/configs/delete', { slug: 'acme', configId: a.id });
    const detections = await send('POST', '/detection/list', {
      slug: 'acme',
      filters: [{ property: 'source', operator: 'in', value: ['CERTSTREAM'] }],
    });

    expect(validated.failures).toEqual([]);
    expect(detections.detections.map((d: { reportStatus: string }) => d.reportStatus)).toEqual([
      'REPORTED',
      'REPORTED',
    ]);
    for (const name of [
      'create-detection-config',
      'update-detection-config',
      'run-detection-configs',
      'validate-detection-configs',
      'delete-detection-config',
      'run-detections',
    ]) {
      expect(partitionsWritten(name), name).toEqual(declared(name));
    }
  });

  it('schedule-detections and feed-check-samples: exactly what they declare, the sample auto-reported past an abandoned report', async () => {
    await send('POST', '/detection/configs/create', { slug: 'acme', source: 'ASSET_CHECK', config: {} });
    const [reviewed, pending] = await abandonReport('acme-login-sample');
    await approve(reviewed as { id: string; assetId: number });
    const noQueue = { send: async () => undefined };
    const runtime = await import('../../shared/runtime.ts');

    const scheduled = await asWorker('schedule-detections', () =>
      scheduleDueRuns({ store: runtime.detections(), queue: noQueue }, SCHEDULE_CLASSES, Date.now() + 2 * 86_400_000),
    )();
    const fed = await asWorker('feed-check-samples', () =>
      feedCheckSamples(detectionRuntime.detectionPipeline(), [pending?.content as string], Date.now()),
    )();

    expect(scheduled.length).toBeGreaterThan(0);
    expect(fed).toBe(1);
    for (const name of ['schedule-detections', 'feed-check-samples']) {
      expect(partitionsWritten(name), name).toEqual(declared(name));
    }
  });

  it('publish-verdicts: exactly what it declares, publishing under its lease', async () => {
    const publisher = verdictPublisher({
      log: verdictFeed(table.db, table.tableName),
      feed: fileFeedStore(mkdtempSync(join(tmpdir(), 'declared-writes-feed-'))),
      lease: dynamoLease(table.db, table.tableName, { name: 'declared-writes', owner: 'test', leaseMs: 10_000 }),
      leaseMs: 10_000,
    });

    const outcome = await asWorker('publish-verdicts', () => publisher.tick())();

    expect(outcome.role).toBe('publisher');
    expect(partitionsWritten('publish-verdicts')).toEqual(declared('publish-verdicts'));
  });

  it('leaves no function that declares writes undriven', () => {
    const declaring = [
      ...ROUTES.filter((route) => (route.writes ?? []).length > 0).map((route) => route.name),
      ...Object.entries(WORKER_WRITES)
        .filter(([, writes]) => writes.length > 0)
        .map(([name]) => name),
    ];

    expect(declaring.filter((name) => partitionsWritten(name).size === 0)).toEqual([]);
  });
});
