import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import { applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { documentedOrganization, exampleOrganization, mergeFixtures } from '../fixtures/contract-data.ts';
import { seed, seedBlockedThreat } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-report-backed');
/** A connector's key: an organization with no verdict of its own, so every block it meets is another's. */
const CONNECTOR = 'connector-report-backed-key-0123456789';
/** A connector syncs in bursts; its key's read budget is not what this test is about. */
const GENEROUS = { perSecond: 1000, burst: 1000 };
/** The verdicts are dated by when they were recorded (now, as the fixtures load): a connector's first sync starts before. */
const SEEDED_FROM = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const server = createGateway();
let base = '';

// Each load in a hook of its own: the demo's ninety days of activity are most of the work.
beforeAll(() => seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8'))));
beforeAll(() =>
  applyActivities(suffixes, activityRepository(table.db, table.tableName), demoActivity(suffixes, new Date())),
);
beforeAll(async () => {
  await seed(
    table.db,
    table.tableName,
    mergeFixtures([
      exampleOrganization('contract-backed', 'contract-backed-key-0123456789'),
      documentedOrganization('contract-documented-key-0123456789'),
      {
        organizations: [{ slug: 'connector', name: 'Connector' }],
        apiKeys: [{ key: CONNECTOR, organization: 'connector', rateLimits: { read: GENEROUS } }],
      },
    ]),
  );
  await seedBlockedThreat(table.db, table.tableName, 'connector', 't-bench');
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': CONNECTOR },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
};

/** The BLOCKED verdicts of one type, as a connector keeps its copy: `POST /asset/list` from an early day, every page. */
const blockedVerdicts = async (type: string) => {
  const contents: string[] = [];
  let page: Record<string, unknown> = { type, status: 'BLOCKED', startDate: SEEDED_FROM, per_page: 10_000 };
  for (;;) {
    const listed = await post('/asset/list', page);
    contents.push(...(listed.assets as { content: string }[]).map((asset) => asset.content));
    if (!listed.next_page) return contents;
    page = { ...page, next_page: listed.next_page };
  }
};

/** What a connector meets when it follows a verdict: the details, and the page its `reportUrl` leads to. */
const follow = async (content: string) => {
  const details = await post('/asset/details', { content });
  const page = typeof details.reportUrl === 'string' ? await fetch(details.reportUrl) : undefined;
  await page?.body?.cancel();
  return {
    content,
    status: details.status,
    reason: details.reason,
    reportId: typeof details.reportId,
    page: page?.status,
  };
};

const followed: string[] = [];

describe('report-backed verdicts, followed as a connector follows them', () => {
  it.each(ASSET_TYPES)('gives every BLOCKED %s verdict a reportId whose reportUrl answers 200', async (type) => {
    const verdicts = await blockedVerdicts(type);

    const met = await mapConcurrently(verdicts, 4, follow);

    expect(met).toEqual(
      verdicts.map((content) => ({ content, status: 'BLOCKED', reason: 'report', reportId: 'number', page: 200 })),
    );
    followed.push(...verdicts);
  });

  it('followed the demo’s blocks and the fixtures’ threats recorded without a report', () => {
    // The demo blocks dozens of contents; the fixtures add the contract data's threat and the benchmarks' look-alike.
    expect(followed.length).toBeGreaterThan(20);
    expect(followed).toEqual(expect.arrayContaining(['fake-phishing-site.com', 'bench-brand-airdrop.example']));
  });
});
