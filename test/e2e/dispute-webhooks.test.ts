import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { changeLogReader } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver, verifySignature } from '../fixtures/webhook-receiver.ts';

const table = await createTestTable('e2e-dispute-webhooks');
const keyFile = join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key');
process.env.WEBHOOK_SECRETS_KEY_FILE = keyFile;
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

const ACME = 'acme-org-key-disputehooks-0123456789';
const GLOBEX = 'globex-org-key-disputehooks-0123456789';
const UPHELD = 'wrongly-blocked-dh.xyz';
const UNBLOCKED = 'acme-unblocks-dh.xyz';
const REJECTED = 'rightly-blocked-dh.xyz';
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
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const threat = (id: string, content: string) => ({
  organization: 'acme',
  kind: 'threat',
  id,
  content,
  assetType: 'URL',
  status: 'BLOCKED',
  createdAt: '2026-01-05T10:00:00Z',
});

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
    activity: [
      threat('1790000000000801', UPHELD),
      threat('1790000000000802', UNBLOCKED),
      threat('1790000000000803', REJECTED),
    ],
  });
  // The seeded threats' own changes (each content BLOCKED) are logged too: the generator passes them
  // before the webhook exists, so the receiver gets only what the disputes and the unblock change.
  const seeded = positionAt(Date.now());
  const log = changeLogReader(table.db, table.tableName);
  for (let i = 0; i < 600 && ((await log.cursor()) ?? '') < seeded; i++) await pause(50);
  if (((await log.cursor()) ?? '') < seeded) throw new Error('The webhook generator never passed the seeded changes');
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
/** What `npm run admin -- disputes uphold|reject <id>` runs. */
const admin = (...words: string[]) => runAdminCommand(table.db, table.tableName, words, { note: 'Checked by hand' });

type Event = {
  type: string;
  created_at: string;
  data: { asset_id: number; type: string; content: string; status: string };
};
const events = () => receiver.received.map((request) => JSON.parse(request.body) as Event);

describe('disputes and unblocks reach the webhooks of the organization that owns the threat', () => {
  let secret = '';

  it('sends one asset.status-updated ALLOWED, signed, to the threat owner once a dispute of its content is upheld', async () => {
    const created = await call('POST', '/webhook/config', ACME, {
      url: receiver.url(),
      events: ['asset.status-updated'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    secret = created.body.secret;

    const dispute = await call('POST', '/dispute/create', GLOBEX, {
      content: `https://${UPHELD}`,
      email: 'owner@wrongly-blocked-dh.xyz',
    });
    expect(dispute.status, JSON.stringify(dispute.body)).toBe(200);
    await admin('disputes', 'uphold', dispute.body.id);
    await receiver.waitFor(1);

    expect(events()).toEqual([
      {
        type: 'asset.status-updated',
        created_at: expect.any(String),
        data: { asset_id: expect.any(Number), type: 'URL', content: UPHELD, status: 'ALLOWED' },
      },
    ]);
    const [request] = receiver.received;
    expect(verifySignature(secret, request?.body ?? '', request?.headers['x-chainpatrol-signature'] as string)).toBe(
      true,
    );
  });

  it('sends nothing for a rejected dispute, and one asset.status-updated UNKNOWN for an unblock of its own threat', async () => {
    const dispute = await call('POST', '/dispute/create', GLOBEX, {
      content: `https://${REJECTED}`,
      email: 'owner@rightly-blocked-dh.xyz',
    });
    expect(dispute.status, JSON.stringify(dispute.body)).toBe(200);
    await admin('disputes', 'reject', dispute.body.id);
    const unblocked = await call('POST', '/asset/unblock', ACME, { content: UNBLOCKED });
    // The unblock's change follows the rejection in the log: once its event is in, the rejection made none.
    await receiver.waitFor(2);

    expect(unblocked.status).toBe(200);
    expect(unblocked.body).toEqual({ status: 'UNBLOCKED', content: UNBLOCKED });
    expect(events().slice(1)).toEqual([
      {
        type: 'asset.status-updated',
        created_at: expect.any(String),
        data: { asset_id: expect.any(Number), type: 'URL', content: UNBLOCKED, status: 'UNKNOWN' },
      },
    ]);
    const request = receiver.received[1];
    expect(verifySignature(secret, request?.body ?? '', request?.headers['x-chainpatrol-signature'] as string)).toBe(
      true,
    );
    const rejected = await call('POST', '/asset/check', ACME, { content: REJECTED });
    expect(rejected.body.status).toBe('BLOCKED');
  });

  it('records each of those events once among the webhook deliveries', async () => {
    const hooks = await call('GET', '/webhook/config', ACME);
    const deliveries = await call('GET', `/webhook/config/${hooks.body.webhooks[0].id}/deliveries`, ACME);

    expect(deliveries.body.deliveries.map((d: { event: string }) => d.event)).toEqual([
      'asset.status-updated',
      'asset.status-updated',
    ]);
    expect(receiver.received).toHaveLength(2);
  });
});
