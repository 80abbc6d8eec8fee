/**
 * Upheld disputes: how soon `/asset/check` answers ALLOWED after the operator upheld a dispute of
 * a blocked content, through the local gateway on DynamoDB Local (goal: p99 within 1 s, the
 * verdict feed's freshness). `benchDispute` runs this file in a process of its own, so that its
 * handlers read this table; it prints its rows as JSON on the last line of stdout.
 */
import type { AddressInfo } from 'node:net';
import { percentile, type Row, rowsOfChild, runAsChild } from './child.ts';

const TABLE = 'bench-disputes';
const KEY = 'bench-dispute-key-0123456789';
const DISPUTES = 60;
const POLL_MS = 10;
const MAX_POLLS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const benchDispute = async (endpoint: string): Promise<Row[]> => {
  return rowsOfChild('test/bench/dispute.ts', endpoint, { TABLE_NAME: TABLE, DYNAMODB_ENDPOINT: endpoint });
};

const run = async (endpoint: string): Promise<Row[]> => {
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { loadFixture, parseFixture } = await import('../../infra/local/fixture.ts');
  const { createGateway } = await import('../../infra/local/gateway.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  const { disputeRepository } = await import('../../shared/db/dispute-repository.ts');
  const { resolveDispute } = await import('../../shared/domain/intake/disputes.ts');
  await ensureTable(endpoint, TABLE);
  const db = createDocumentClient(endpoint);
  const contents = Array.from({ length: DISPUTES }, (_, i) => `bench-disputed-${Date.now()}-${i}.xyz`);
  await loadFixture(
    db,
    TABLE,
    parseFixture({
      organizations: [{ slug: 'bench', name: 'Bench' }],
      apiKeys: [{ key: KEY, organization: 'bench' }],
      activity: contents.map((content, i) => ({
        organization: 'bench',
        kind: 'threat',
        id: `bench-dispute-${i}`,
        content,
        assetType: 'URL',
        status: 'BLOCKED',
        createdAt: '2026-01-01T00:00:00Z',
      })),
    }),
    () => undefined,
  );
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-API-KEY': KEY }, body: JSON.stringify(body) })
    ).json()) as Record<string, unknown>;
  const disputes = disputeRepository(db, TABLE);
  const visible: number[] = [];
  let missed = 0;
  try {
    for (const content of contents) {
      for (let i = 0; i < MAX_POLLS && (await post('/asset/check', { content })).status !== 'BLOCKED'; i++)
        await sleep(POLL_MS);
      const dispute = await post('/dispute/create', { content, email: 'owner@example.com' });
      // At a random point of the replica's poll cycle, as an operator's uphold comes.
      await sleep(Math.random() * 1000);
      await resolveDispute(disputes, String(dispute.id), 'UPHELD', Date.now());
      const upheld = performance.now();
      let allowed = false;
      for (let i = 0; i < MAX_POLLS && !allowed; i++) {
        allowed = (await post('/asset/check', { content })).status === 'ALLOWED';
        if (!allowed) await sleep(POLL_MS);
      }
      if (allowed) visible.push(performance.now() - upheld);
      else missed++;
    }
  } finally {
    server.close();
  }
  return [
    {
      name: 'upheld dispute → check ALLOWED: disputes',
      value: `${visible.length} visible, ${missed} not within ${(MAX_POLLS * POLL_MS) / 1000} s`,
    },
    { name: 'upheld dispute → check ALLOWED: p50', value: `${percentile(visible, 0.5).toFixed(0)} ms` },
    {
      name: 'upheld dispute → check ALLOWED: p99',
      value: `${percentile(visible, 0.99).toFixed(0)} ms (goal ≤ 1000 ms)`,
    },
  ];
};

runAsChild('dispute.ts', run);
