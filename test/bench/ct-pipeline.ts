/**
 * CERTSTREAM end to end: the time from asking for a run of a config over a recorded log (10,000
 * benign names and one lookalike of the organization's brand) to the lookalike listed by
 * `/detection/list`, through the local gateway and its in-process run queue on DynamoDB Local.
 * Each round is a new organization, so its lookalike is a new detection. `benchCtPipeline` runs
 * this file in a process of its own (its handlers read its table and recording); it prints its
 * rows as JSON on the last line of stdout.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logEntry } from '../fixtures/certificates.ts';
import { percentile, type Row, rowsOfChild, runAsChild } from './child.ts';

const TABLE = 'bench-ct-pipeline';
const ROUNDS = 5;
const BENIGN = 10_000;
const LOOKALIKE = 'acme-airdrop-claim.xyz';
const POLL_MS = 20;
const MAX_POLLS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const benchCtPipeline = async (endpoint: string): Promise<Row[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ct-'));
  const names = Array.from({ length: BENIGN }, (_, i) => `harbor-meadow-${i}.example`);
  names.splice(BENIGN / 2, 0, LOOKALIKE);
  writeFileSync(join(dir, 'ct.json'), JSON.stringify({ entries: names.map((name, i) => logEntry([name], i + 1)) }));
  return rowsOfChild('test/bench/ct-pipeline.ts', endpoint, {
    TABLE_NAME: TABLE,
    DYNAMODB_ENDPOINT: endpoint,
    DETECTION_CT_RECORDING: join(dir, 'ct.json'),
  });
};

const run = async (endpoint: string): Promise<Row[]> => {
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { loadFixture, parseFixture } = await import('../../infra/local/fixture.ts');
  const { createGateway } = await import('../../infra/local/gateway.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  await ensureTable(endpoint, TABLE);
  const db = createDocumentClient(endpoint);
  const stamp = Date.now();
  const orgs = Array.from({ length: ROUNDS }, (_, i) => ({
    slug: `bench-ct-${stamp}-${i}`,
    key: `bench-ct-key-${stamp}-${i}`,
  }));
  await loadFixture(
    db,
    TABLE,
    parseFixture({
      organizations: orgs.map(({ slug }) => ({
        slug,
        name: 'Acme',
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet', includedTerms: ['acme'] }],
      })),
      apiKeys: orgs.map(({ slug, key }) => ({ key, organization: slug })),
    }),
    () => undefined,
  );
  const server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const post = async (key: string, path: string, body: unknown) =>
    (await (
      await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-API-KEY': key }, body: JSON.stringify(body) })
    ).json()) as Record<string, unknown>;
  const times: number[] = [];
  let missed = 0;
  try {
    for (const { slug, key } of orgs) {
      const created = await post(key, '/detection/configs/create', {
        slug,
        source: 'CERTSTREAM',
        config: { logs: ['https://ct.example.net/log'] },
      });
      const started = performance.now();
      await post(key, '/detection/configs/run', { slug, configId: created.id });
      let listed = false;
      for (let i = 0; i < MAX_POLLS && !listed; i++) {
        const page = await post(key, '/detection/list', { slug, limit: 10 });
        listed = ((page.detections ?? []) as { threatContent: string }[]).some((d) => d.threatContent === LOOKALIKE);
        if (!listed) await sleep(POLL_MS);
      }
      if (listed) times.push(performance.now() - started);
      else missed++;
    }
  } finally {
    server.close();
  }
  return [
    {
      name: `CT end to end: run asked → lookalike listed (${BENIGN.toLocaleString('en-US')} + 1 entries), rounds`,
      value: `${times.length} listed, ${missed} not within ${(MAX_POLLS * POLL_MS) / 1000} s`,
    },
    { name: 'CT end to end: p50', value: `${percentile(times, 0.5).toFixed(0)} ms` },
    { name: 'CT end to end: max', value: `${Math.max(0, ...times).toFixed(0)} ms` },
  ];
};

runAsChild('ct-pipeline.ts', run);
