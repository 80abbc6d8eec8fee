import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { startLocalWebhooks } from '../../infra/local/webhooks.ts';
import { changeLogReader, webhookRepository } from '../../shared/db/webhook-repository.ts';
import { localSealer } from '../../shared/db/webhook-secrets.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { newWebhookId } from '../../shared/domain/webhooks/webhooks.ts';
import type { Dispatcher } from '../../shared/webhooks/local-queue.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';
import { startReceiver } from '../fixtures/webhook-receiver.ts';

/*
 * A content many organizations own as a threat: each of them hears of its status change, however
 * many records of it there are (the generator reads every page of them, not the newest few).
 */
const table = await createTestTable('e2e-webhook-owners');
const keyFile = join(mkdtempSync(join(tmpdir(), 'webhook-keys-')), 'webhook-secrets.key');
process.env.WEBHOOK_SECRETS_KEY_FILE = keyFile;
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

const OWNERS = Array.from({ length: 30 }, (_, i) => `owner-${String(i).padStart(2, '0')}`);
const ZETA = 'zeta-org-key-webhook-owners-0123456789';
const CONTENT = 'popular-phish-owners.example';
const server = createGateway();
const receiver = await startReceiver();
const sealer = localSealer(keyFile);
let webhooks: Dispatcher | undefined;
let base = '';

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [...OWNERS, 'zeta'].map((slug) => ({ slug, name: slug })),
    apiKeys: [{ key: ZETA, organization: 'zeta' }],
  });
  // One at a time: every threat moves the same check-index entry.
  for (const [i, organization] of OWNERS.entries()) {
    await seed(table.db, table.tableName, {
      activity: [
        {
          organization,
          kind: 'threat',
          id: `17900000000009${String(i).padStart(2, '0')}`,
          content: CONTENT,
          assetType: 'URL',
          status: 'BLOCKED',
          createdAt: '2026-01-05T10:00:00Z',
        },
      ],
    });
  }
  const store = webhookRepository(table.db, table.tableName);
  for (const orgId of [...OWNERS, 'zeta']) {
    await store.create({
      id: newWebhookId(),
      orgId,
      url: receiver.url(`/${orgId}`),
      description: null,
      events: ['asset.status-updated'],
      headers: undefined,
      enabled: true,
      createdAt: new Date().toISOString(),
      sealedSecret: await sealer.seal('c'.repeat(64)),
    });
  }
  // The generator starts after the owners' own changes: it learns of them only from their records.
  await changeLogReader(table.db, table.tableName).saveCursor(positionAt(Date.now()));
  webhooks = startLocalWebhooks({
    db: table.db,
    tableName: table.tableName,
    sealer,
    policy: { allowLoopback: true },
    pollMs: 50,
    onError: (error) => console.error('WEBHOOK ERROR', error),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(async () => {
  await webhooks?.stop();
  await receiver.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a content owned as a threat by more organizations than one page of records', () => {
  it('sends its status change to every owner once, and to the organization that made it', async () => {
    const added = await fetch(`${base}/organization/assets`, {
      method: 'POST',
      headers: { 'X-API-KEY': ZETA },
      body: JSON.stringify({ assets: [{ content: `https://${CONTENT}` }] }),
    });
    expect(added.status).toBe(200);
    await receiver.waitFor(OWNERS.length + 1);

    const byOrganization = receiver.received.map((request) => ({
      orgId: request.path.slice(1),
      body: JSON.parse(request.body) as { type: string; data: { status: string; type: string } },
    }));
    expect(byOrganization.map((event) => event.orgId).sort()).toEqual([...OWNERS, 'zeta'].sort());
    for (const event of byOrganization) {
      expect(event.body).toMatchObject({ type: 'asset.status-updated', data: { status: 'ALLOWED', type: 'URL' } });
    }
    expect(new Set(receiver.received.map((request) => request.headers['x-chainpatrol-event-id'])).size).toBe(
      OWNERS.length + 1,
    );
  });
});
