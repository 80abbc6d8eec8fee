import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-intake');
const ACME = 'acme-intake-key-0123456789abcdef';
const GLOBEX = 'globex-intake-key-0123456789abcdef';
const BOT = 'bot-intake-key-0123456789abcdef';
const server = createGateway();
let base = '';
const startedAt = Date.now();

const threat = (organization: string, id: string, content: string) => ({
  organization,
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
    users: [{ id: 'bot', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
      { key: BOT, user: 'bot' },
    ],
    activity: [
      threat('acme', 't-airdrop-6', 'acme-wallet-airdrop-6.xyz'),
      threat('acme', 't-airdrop-7', 'https://acme-wallet-airdrop-7.xyz/claim'),
      threat('acme', 't-own', 'acme-own-block.xyz'),
      threat('globex', 't-foreign', 'globex-blocked.xyz'),
      threat('globex', 't-upheld', 'wrongly-blocked.xyz'),
      threat('globex', 't-rejected', 'rightly-blocked.xyz'),
      threat('globex', 't-marker', 'upheld-after-reject.xyz'),
      threat('acme', '1790000000000901', 'shared-block.xyz'),
      threat('globex', '1790000000000902', 'shared-block.xyz'),
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (path: string, key: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': key },
    body: JSON.stringify(body),
  });
  const parsed = JSON.parse(await response.text());
  const match = matchRoute('POST', path);
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, body: parsed };
};
const statusOf = async (content: string) => (await call('/asset/check', BOT, { content })).body.status as string;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks until the status is `expected` (at most `attempts` times, 50 ms apart); the last status and how long it took. */
const checkUntil = async (content: string, expected: string, attempts = 100) => {
  const from = performance.now();
  let status = await statusOf(content);
  for (let i = 1; i < attempts && status !== expected; i++) {
    await pause(50);
    status = await statusOf(content);
  }
  return { status, ms: performance.now() - from };
};
const errorOf = (code: string, message: string) => ({
  code,
  message,
  error: { code, message },
  requestId: expect.any(String),
});
const admin = (...words: string[]) => runAdminCommand(table.db, table.tableName, words, { note: 'Checked by hand' });

describe('intake through the local gateway', () => {
  it('extracts from a chat message URLs whose blocked domains check BLOCKED', async () => {
    const text =
      'FREE drop!! claim at https://acme-wallet-airdrop-6.xyz). or [here](hxxps://acme-wallet-airdrop-7[.]xyz/claim?ref=1), ask @acme_help';

    const parsed = await call('/asset/parse', BOT, { text });
    const urls = parsed.body.assets.filter((asset: { type: string }) => asset.type === 'URL');
    const statuses = await Promise.all(urls.map((asset: { content: string }) => checkUntil(asset.content, 'BLOCKED')));

    expect(parsed.status).toBe(200);
    expect(urls.map((asset: { content: string }) => asset.content)).toEqual([
      'acme-wallet-airdrop-6.xyz',
      'acme-wallet-airdrop-7.xyz/claim',
    ]);
    expect(statuses.map((answer) => answer.status)).toEqual(['BLOCKED', 'BLOCKED']);
  });

  it('takes a dispute once per email, and an upheld one makes the content ALLOWED in checks and the changelog', async () => {
    const content = 'https://wrongly-blocked.xyz';
    const before = await checkUntil(content, 'BLOCKED');

    const first = await call('/dispute/create', BOT, { content, email: 'owner@wrongly-blocked.xyz' });
    const again = await call('/dispute/create', ACME, {
      content: 'wrongly-blocked.xyz',
      email: 'Owner@wrongly-blocked.xyz',
    });
    const listed = JSON.parse(await admin('disputes', 'list'));
    await admin('disputes', 'uphold', first.body.id);
    const after = await checkUntil(content, 'ALLOWED');
    let changes: { content: string; status: string }[] = [];
    for (let i = 0; i < 100 && !changes.some((change) => change.status === 'ALLOWED'); i++) {
      await pause(100);
      const log = await call('/asset/changelog', BOT, { since: positionAt(startedAt - 60_000), per_page: 1000 });
      changes = log.body.changes.filter((change: { content: string }) => change.content === 'wrongly-blocked.xyz');
    }

    expect(before.status).toBe('BLOCKED');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: expect.stringMatching(/^\d+$/), content });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(errorOf('BAD_REQUEST', 'A dispute already exists for this asset with this email'));
    expect(listed).toContainEqual(
      expect.objectContaining({
        id: first.body.id,
        status: 'OPEN',
        checkKey: 'wrongly-blocked.xyz',
        notes: ['Created through the API'],
      }),
    );
    expect(after.status).toBe('ALLOWED');
    expect(changes.map((change) => change.status)).toContain('ALLOWED');
    console.log(`dispute upheld → /asset/check ALLOWED after ${after.ms.toFixed(0)} ms`);
  });

  it('keeps a rejected dispute content BLOCKED', async () => {
    const content = 'rightly-blocked.xyz';
    const dispute = await call('/dispute/create', BOT, { content, email: 'someone@example.com' });

    const rejected = JSON.parse(await admin('disputes', 'reject', dispute.body.id));
    // A change made after the rejection: once the check shows it, it shows anything the rejection changed.
    const marker = await call('/dispute/create', BOT, {
      content: 'upheld-after-reject.xyz',
      email: 'owner@example.com',
    });
    await admin('disputes', 'uphold', marker.body.id);
    const markerSeen = await checkUntil('upheld-after-reject.xyz', 'ALLOWED');

    expect(rejected).toMatchObject({ id: dispute.body.id, status: 'REJECTED', resolutionNote: 'Checked by hand' });
    expect(markerSeen.status).toBe('ALLOWED');
    expect(await statusOf(content)).toBe('BLOCKED');
  });

  it('answers 404 for a dispute of content the service knows nothing about', async () => {
    const response = await call('/dispute/create', BOT, { content: 'never-seen-anywhere-0192.xyz', email: 'a@b.co' });

    expect(response.status).toBe(404);
    expect(response.body).toEqual(errorOf('NOT_FOUND', 'Asset not found'));
  });

  it("unblocks the caller's own threat: the content checks UNKNOWN", async () => {
    const blocked = await checkUntil('acme-own-block.xyz', 'BLOCKED');

    const response = await call('/asset/unblock', ACME, { content: 'https://acme-own-block.xyz' });
    const after = await checkUntil('acme-own-block.xyz', 'UNKNOWN');

    expect(blocked.status).toBe('BLOCKED');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'UNBLOCKED', content: 'https://acme-own-block.xyz' });
    expect(after.status).toBe('UNKNOWN');
  });

  it("files one dispute for another organization's threat, however often it is asked", async () => {
    const first = await call('/asset/unblock', ACME, { content: 'globex-blocked.xyz' });
    const second = await call('/asset/unblock', ACME, { content: 'globex-blocked.xyz' });
    const disputes = JSON.parse(await admin('disputes', 'list')).filter(
      (dispute: { checkKey: string }) => dispute.checkKey === 'globex-blocked.xyz',
    );

    expect(first.status).toBe(200);
    expect(first.body).toEqual({ status: 'DISPUTED', content: 'globex-blocked.xyz', disputeId: expect.any(String) });
    expect(second.body).toEqual(first.body);
    expect(disputes).toEqual([
      expect.objectContaining({ id: first.body.disputeId, organization: 'acme', status: 'OPEN' }),
    ]);
    expect(await statusOf('globex-blocked.xyz')).toBe('BLOCKED');
  });

  it("withdraws the caller's own threat and disputes the content another organization still blocks", async () => {
    const listed = { query: 'shared-block', startDate: '2026-01-01', endDate: '2026-01-31' };
    const before = await call('/threats/list', ACME, listed);

    const response = await call('/asset/unblock', ACME, { content: 'shared-block.xyz' });
    const threats = await call('/threats/list', ACME, listed);

    expect(before.body.threats).toHaveLength(1);
    expect(response.body).toEqual({ status: 'DISPUTED', content: 'shared-block.xyz', disputeId: expect.any(String) });
    expect(threats.body.threats).toEqual([]);
    expect(await statusOf('shared-block.xyz')).toBe('BLOCKED');
  });

  it('answers 400 when the content is not blocked', async () => {
    const response = await call('/asset/unblock', ACME, { content: 'never-blocked-4711.xyz' });

    expect(response.status).toBe(400);
    expect(response.body).toEqual(errorOf('BAD_REQUEST', 'Asset is not blocked'));
  });
});
