import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { assetRecordsReader, changeLogReader, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { organizationIdOf } from '../../shared/domain/lifecycle/reports.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { eventGenerator } from '../../shared/webhooks/generator.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver, verifySignature } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('e2e-webhooks');
const keyFile = join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key');
process.env.WEBHOOK_SECRETS_KEY_FILE = keyFile;
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

const ACME = 'acme-org-key-webhooks-0123456789';
const ACME_READ = 'acme-read-key-webhooks-0123456789';
const GLOBEX = 'globex-org-key-webhooks-0123456789';
const MEMBER = 'member-user-key-webhooks-0123456789';
const server = createGateway();
const receiver = await startReceiver();
const startedAt = positionAt(Date.now() - 10_000);
const webhooks = startLocalWebhooks({
  db: table.db,
  tableName: table.tableName,
  sealer: localSealer(keyFile),
  policy: { allowLoopback: true },
  pollMs: 50,
  onError: (error) => console.error('WEBHOOK ERROR', error),
});
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme', brands: [{ slug: 'acme-wallet', name: 'Acme Wallet' }] },
      { slug: 'globex', name: 'Globex' },
    ],
    users: [{ id: 'member', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: ACME_READ, organization: 'acme', scopes: ['read'] },
      { key: GLOBEX, organization: 'globex' },
      { key: MEMBER, user: 'member' },
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

const bodies = () => receiver.received.map((request) => JSON.parse(request.body) as Record<string, unknown>);

describe('webhooks through the local runtime', () => {
  let secret = '';
  let standardSecret = '';
  let hookId = '';

  it('creates a webhook, showing its secret once, and lists it without the secret', async () => {
    const created = await call('POST', '/webhook/config', ACME, {
      url: receiver.url(),
      description: 'SIEM',
      events: ['asset.status-updated', 'asset.status-escalated'],
    });
    const listed = await call('GET', '/webhook/config', ACME);

    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: receiver.url(),
      description: 'SIEM',
      events: ['asset.status-updated', 'asset.status-escalated'],
      enabled: true,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      standardWebhooksSecret: `whsec_${Buffer.from(created.body.secret).toString('base64')}`,
    });
    const { secret: shown, standardWebhooksSecret: standard, ...view } = created.body;
    expect(listed).toEqual({ status: 200, body: { webhooks: [view] } });
    secret = shown;
    standardSecret = standard;
    hookId = created.body.id;
  });

  it('sends debug.test, signed with the shown secret, and logs its delivery', async () => {
    const tested = await call('POST', `/webhook/config/${hookId}/test`, ACME);
    await receiver.waitFor(1);
    const [request] = receiver.received;

    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ event: 'debug.test', status: 'PENDING' });
    expect(Object.keys(JSON.parse(request?.body ?? '{}'))).toEqual(['event', 'created_at', 'data']);
    expect(JSON.parse(request?.body ?? '{}')).toEqual({
      event: 'debug.test',
      created_at: expect.any(String),
      data: {},
    });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(verifySignature(secret, request?.body ?? '', request?.headers['x-chainpatrol-signature'] as string)).toBe(
      true,
    );
    expect(request?.headers['x-chainpatrol-event-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(request?.headers['x-chainpatrol-timestamp']).toMatch(/^\d{10}$/);
  });

  it('signs the delivery as Standard Webhooks, which a receiver verifies with its library and refuses replayed 6 minutes later', () => {
    const [request] = receiver.received;
    const headers = Object.fromEntries(
      Object.entries(request?.headers ?? {}).map(([name, value]) => [name, String(value)]),
    );
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    const verifyAt = (ms: number) => {
      const clock = vi.spyOn(Date, 'now').mockReturnValue(ms);
      try {
        return new StandardWebhook(standardSecret).verify(request?.body ?? '', headers);
      } finally {
        clock.mockRestore();
      }
    };

    expect(headers['webhook-id']).toBe(headers['x-chainpatrol-event-id']);
    expect(headers['webhook-timestamp']).toBe(headers['x-chainpatrol-timestamp']);
    expect(verifyAt(sentAt + 1000)).toEqual({ event: 'debug.test', created_at: expect.any(String), data: {} });
    expect(() => verifyAt(sentAt + 6 * 60_000)).toThrow('Message timestamp too old');
  });

  it('delivers an allowlisting, an approved proposal and an allowlist removal, each once, in order, as published', async () => {
    const added = await call('POST', '/organization/assets', ACME, {
      assets: [{ content: 'https://acme-docs.example/start' }],
    });
    const assetId = added.body.results[0].id as number;
    const report = await call('POST', '/report/create', ACME, {
      title: 'Phishing kit',
      description: 'Seen in a DM',
      assets: [{ content: 'https://acme-wallet-claim.example/login' }],
    });
    const reports = await call('GET', '/organization/reports?needsCustomerReview=true', ACME);
    const proposal = reports.body.reports.find((r: { id: number }) => r.id === report.body.id).proposals[0];
    const brands = await call('GET', '/organization/brands', ACME);
    const approved = await call('POST', `/organization/proposals/${proposal.id}/review`, ACME, {
      assetId: proposal.asset.id,
      decision: 'APPROVE',
      label: 'Brand Impersonation',
      brandId: brands.body.brands[0].id,
    });
    const deleted = await call('DELETE', `/organization/assets/${assetId}`, ACME);
    await receiver.waitFor(5);

    expect([added.status, report.status, approved.status, deleted.status]).toEqual([200, 200, 200, 200]);
    const events = receiver.received.slice(1);
    expect(events.map((request) => request.body)).toEqual([
      `{"type":"asset.status-updated","created_at":${JSON.stringify(bodies()[1]?.created_at)},"data":{"asset_id":${assetId},"type":"URL","content":"https://acme-docs.example/start","status":"ALLOWED"}}`,
      `{"type":"asset.status-updated","created_at":${JSON.stringify(bodies()[2]?.created_at)},"data":{"asset_id":${proposal.asset.id},"type":"URL","content":"https://acme-wallet-claim.example/login","status":"BLOCKED"}}`,
      `{"type":"asset.status-escalated","created_at":${JSON.stringify(bodies()[3]?.created_at)},"data":{"asset_id":${proposal.asset.id},"content":"https://acme-wallet-claim.example/login","type":"url","status":"BLOCKED","proposal_id":${proposal.id},"organization_id":${organizationIdOf('acme')}}}`,
      `{"type":"asset.status-updated","created_at":${JSON.stringify(bodies()[4]?.created_at)},"data":{"asset_id":${assetId},"type":"URL","content":"https://acme-docs.example/start","status":"UNKNOWN"}}`,
    ]);
    for (const request of events) {
      expect(verifySignature(secret, request.body, request.headers['x-chainpatrol-signature'] as string)).toBe(true);
    }
    const ids = events.map((request) => request.headers['x-chainpatrol-event-id']);
    expect(new Set(ids).size).toBe(4);
    const times = bodies()
      .slice(1)
      .map((body) => body.created_at as string);
    expect([...times].sort()).toEqual(times);
  });

  it('records nothing again when the whole log is read a second time, even by a generator that read its state before', async () => {
    const store = webhookRepository(table.db, table.tableName);
    const log = changeLogReader(table.db, table.tableName);
    const read: string[] = [];
    const queued: string[] = [];
    const rereading = (deliveries: typeof store) =>
      eventGenerator(
        {
          hooks: store,
          deliveries,
          log: {
            ...log,
            cursor: async () => startedAt,
            saveCursor: async () => undefined,
            readFrom: async (from) => {
              const changes = await log.readFrom(from);
              read.push(...changes.map((change) => change.version));
              return changes;
            },
          },
          records: assetRecordsReader(table.db, table.tableName),
          now: Date.now,
        },
        (delivery) => {
          queued.push(delivery.sort);
        },
      );
    // As if it had read the generator's state before any event was recorded (two generators at once).
    const stale = { ...store, generatorState: async () => ({ rev: 0, position: '', done: new Set<string>() }) };

    const current = await rereading(store).poll();
    const late = await rereading(stale).poll();

    expect(read.length).toBeGreaterThanOrEqual(6);
    expect(current.events).toBe(0);
    expect(late.events).toBe(0);
    expect(queued).toEqual([]);
  });

  it('lists the deliveries newest first, each SUCCESS after one attempt', async () => {
    const page = await call('GET', `/webhook/config/${hookId}/deliveries?per_page=3`, ACME);
    const rest = await call(
      'GET',
      `/webhook/config/${hookId}/deliveries?per_page=3&next_page=${page.body.next_page}`,
      ACME,
    );

    expect(page.status).toBe(200);
    const all = [...page.body.deliveries, ...rest.body.deliveries];
    expect(all.map((d: { event: string }) => d.event)).toEqual([
      'asset.status-updated',
      'asset.status-escalated',
      'asset.status-updated',
      'asset.status-updated',
      'debug.test',
    ]);
    for (const delivery of all) {
      expect(delivery).toEqual({
        id: expect.stringMatching(/^dlv_/),
        event: delivery.event,
        status: 'SUCCESS',
        attempts: 1,
        responseStatus: 200,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    }
    expect(rest.body.next_page).toBeNull();
  });

  it('lets a user key act for an organization it is an active member of, and no other', async () => {
    const mine = await call('GET', '/webhook/config?organizationSlug=acme', MEMBER);
    const other = await call('GET', '/webhook/config?organizationSlug=globex', MEMBER);
    const none = await call('GET', '/webhook/config', MEMBER);

    expect(mine.body.webhooks).toHaveLength(1);
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('You do not have permission to access webhooks for this organization');
    expect(none.status).toBe(403);
  });

  it("hides another organization's webhook and refuses a key without write", async () => {
    const foreign = await call('PATCH', `/webhook/config/${hookId}`, GLOBEX, { enabled: false });
    const readOnly = await call('GET', '/webhook/config', ACME_READ);

    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Webhook not found');
    expect(readOnly.status).toBe(403);
  });

  it('updates, then deletes a webhook; a deleted one is not found', async () => {
    const updated = await call('PATCH', `/webhook/config/${hookId}`, ACME, {
      enabled: false,
      events: ['asset.status-updated'],
    });
    const removed = await call('DELETE', `/webhook/config/${hookId}`, ACME);
    const again = await call('DELETE', `/webhook/config/${hookId}`, ACME);

    expect(updated.body).toMatchObject({ id: hookId, enabled: false, events: ['asset.status-updated'] });
    expect(removed).toEqual({ status: 200, body: { success: true, id: hookId } });
    expect(again.status).toBe(404);
  });

  it('refuses an eleventh webhook of one organization', async () => {
    const answers = [];
    for (let i = 0; i < 11; i++) {
      answers.push(
        await call('POST', '/webhook/config', GLOBEX, {
          url: receiver.url(`/g${i}`),
          events: ['asset.status-updated'],
        }),
      );
    }

    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers[10]?.status).toBe(400);
    expect(answers[10]?.body.message).toBe('An organization can have at most 10 webhooks');
  });

  it.each([
    [{ url: 'http://example.com/hook', events: ['asset.status-updated'] }, 'Webhook URL must be a public https URL'],
    [{ url: 'https://127.0.0.1/hook', events: ['asset.status-updated'] }, 'Webhook URL must be a public https URL'],
    [
      { url: 'https://169.254.169.254/latest', events: ['asset.status-updated'] },
      'Webhook URL must be a public https URL',
    ],
    [{ url: 'https://10.0.0.1/hook', events: ['asset.status-updated'] }, 'Webhook URL must be a public https URL'],
    [{ url: 'https://example.com', events: ['asset.deleted'] }, expect.stringMatching(/^events must be a list of/)],
    [{ url: 'https://example.com', events: [] }, 'events must name at least one event'],
    [
      { url: 'https://example.com', events: ['asset.status-updated'], headers: { Authorization: 'x' } },
      'headers may only be X-goog-api-key, X-Webhook-Access-Key',
    ],
  ])('answers 400 to %j', async (body, message) => {
    const answer = await call('POST', '/webhook/config', ACME, body);

    expect(answer.status).toBe(400);
    expect(answer.body.message).toEqual(message);
  });
});
