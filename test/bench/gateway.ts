/**
 * Asset check through the local gateway (HTTP on loopback → HTTP API 2.0 event → middy →
 * checker), against DynamoDB Local. A bounded number of requests, a few in flight at a time.
 */
import type { AddressInfo } from 'node:net';
import { createDocumentClient } from '../../shared/db/client.ts';
import { percentile } from './child.ts';

type Row = { name: string; value: string };

const REQUESTS_PER_SET = 2_000;
const IN_FLIGHT = 4;
const KEY = 'bench-gateway-key-0123456789';

export async function benchGateway(endpoint: string): Promise<Row[]> {
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  // The table the process's handlers were configured with (set before their first import).
  const tableName = process.env.TABLE_NAME ?? 'bench-gateway';
  await ensureTable(endpoint, tableName);
  const { seed, seedBlockedThreat } = await import('../fixtures/seed.ts');
  const db = createDocumentClient(endpoint);
  await seed(db, tableName, {
    organizations: [{ slug: 'bench', name: 'Bench' }],
    apiKeys: [{ key: KEY, organization: 'bench' }],
    assets: [{ organization: 'bench', content: 'https://bench-brand.example', type: 'URL' }],
  });
  await seedBlockedThreat(db, tableName, 'bench', 't-bench');

  const { createGateway } = await import('../../infra/local/gateway.ts');
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/asset/check`;

  const sets: Record<string, (i: number) => string> = {
    blocked: (i) => `https://login.bench-brand-airdrop.example/claim?i=${i}`,
    allowed: (i) => `https://bench-brand.example/page/${i}`,
    unknown: (i) => `https://unknown-${i % 200}.example.org/`,
  };
  const rows: Row[] = [];
  try {
    for (const [name, content] of Object.entries(sets)) {
      const times: number[] = [];
      let next = 0;
      let status = '';
      const worker = async () => {
        while (next < REQUESTS_PER_SET) {
          const i = next++;
          const started = process.hrtime.bigint();
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'x-api-key': KEY },
            body: JSON.stringify({ content: content(i) }),
          });
          const body = (await response.json()) as { status: string };
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
          status = body.status;
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const measured = times.slice(200).sort((a, b) => a - b);
      rows.push({
        name: `check via local gateway, ${name} (${status}; ${REQUESTS_PER_SET} requests, ${IN_FLIGHT} in flight)`,
        value: `p50 ${percentile(measured, 0.5).toFixed(2)} ms, p99 ${percentile(measured, 0.99).toFixed(2)} ms`,
      });
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  return rows;
}
