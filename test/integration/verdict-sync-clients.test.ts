import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { applyActivity } from '../../shared/domain/activity.ts';
import { addAssets, removeAsset } from '../../shared/domain/assets.ts';
import { replicatedIndex } from '../../shared/domain/check/replica.ts';
import { LOG_TIMING, positionAt, statusOf } from '../../shared/domain/check/verdicts.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-clients');
// After the table: a function module builds its production dependencies when it loads.
const { createHandler: createChangelogHandler } = await import('../../functions/check/changelog.ts');
const { createHandler: createVersionHandler } = await import('../../functions/check/blocklist-version.ts');
const feed = verdictFeed(table.db, table.tableName);
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const activity = activityRepository(table.db, table.tableName);
const replica = replicatedIndex({ log: feed });
/** The test's clock runs one settle window ahead, so changes are handed to clients without waiting for it. */
const later = () => Date.now() + LOG_TIMING.settleMs + 1;
const changelog = createChangelogHandler({ keys: runtime.keys(), feed, now: later });
const version = createVersionHandler({ keys: runtime.keys(), verdicts: replica });

type Change = { content: string; type: string | null; status: string; watchStatus: string; version: string };
type Page = { changes: Change[]; next_page: string | null; version: string };
const readChangelog = async (body: Record<string, unknown>) =>
  call(changelog, apiEvent({ method: 'POST', path: '/v2/asset/changelog', apiKey: ACME_KEY, body }));

/** A client's local copy: content → [status, watchStatus], kept by applying changelog pages. */
const syncFrom = async (copy: Map<string, [string, string]>, since: string) => {
  let body: Record<string, unknown> = { since, per_page: 3 };
  for (;;) {
    const page = (await readChangelog(body)).body as Page;
    for (const change of page.changes) {
      if (change.status === 'UNKNOWN') copy.delete(change.content);
      else copy.set(change.content, [change.status, change.watchStatus]);
    }
    if (page.next_page === null) return page.version;
    body = { since, per_page: 3, next_page: page.next_page };
  }
};

const threat = (id: string, content: string, status: string, updatedAt: string, watchlisted = false) =>
  applyActivity(activity, {
    organization: 'acme',
    kind: 'threat',
    id,
    content,
    assetType: 'URL',
    status,
    watchlisted,
    brands: [],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt,
  } as never);

const start = positionAt(Date.now() - 1);

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
});

describe('clients that keep the verdicts locally', () => {
  it('end equal to the service verdict of every entry after following the changelog, page by page', async () => {
    const copy = new Map<string, [string, string]>();
    const { results: brand } = await addAssets(assets, groups, 'acme', [
      { content: 'https://sync-brand.example', type: 'URL' },
      { content: 'https://sync-gone.example', type: 'URL' },
    ]);
    await threat('s-1', 'sync-drainer.example', 'BLOCKED', '2026-03-01T10:00:00Z');
    await threat('s-2', 'sync-airdrop.example', 'APPROVED', '2026-03-01T10:00:00Z', true);
    const middle = await syncFrom(copy, start);
    const gone = brand[1];
    if (!gone?.success) throw new Error('the asset to remove was not added');
    await removeAsset(assets, 'acme', gone.id);
    await threat('s-1', 'sync-drainer.example', 'REJECTED', '2026-03-02T10:00:00Z');
    await threat('s-3', 'sync-phish.example', 'AUTO_APPROVED', '2026-03-02T10:00:00Z');
    await addAssets(assets, groups, 'globex', [{ content: 'sync-brand.example', type: 'URL' }]);

    await syncFrom(copy, middle);

    const { keys, states } = await feed.scan();
    const service = new Map(
      keys.flatMap((key, i) => {
        const bits = (states[i] as number) % 8;
        return statusOf(bits) === 'UNKNOWN' ? [] : [[key, [statusOf(bits), bits & 4 ? 'ENABLED' : 'DISABLED']]];
      }),
    );
    expect(Object.fromEntries(copy)).toEqual(Object.fromEntries(service));
    expect(Object.fromEntries(copy)).toEqual({
      'sync-brand.example': ['ALLOWED', 'DISABLED'],
      'sync-airdrop.example': ['BLOCKED', 'ENABLED'],
      'sync-phish.example': ['BLOCKED', 'DISABLED'],
    });
  });

  it('returns the version of the newest settled change and the number of live verdicts', async () => {
    const newest = (await feed.readFrom(start)).at(-1);
    await new Promise((resolve) => setTimeout(resolve, LOG_TIMING.settleMs));
    await replica.sync();

    const response = await call(
      version,
      apiEvent({ method: 'GET', path: '/v2/asset/blocklist/version', apiKey: ACME_KEY }),
    );

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ version: newest?.version, updatedAt: newest?.changedAt, entries: 3 });
  });

  it('returns 410 GONE for a version older than the retention window', async () => {
    const response = await readChangelog({ since: positionAt(Date.now() - LOG_TIMING.retentionMs - 60_000) });

    expect(response.statusCode).toBe(410);
    expect(response.body).toEqual(
      errorBody(
        'GONE',
        'Changes since this version are no longer kept: re-sync the full list from POST /asset/list, then follow the changelog',
        { requestId: expect.any(String) },
      ),
    );
  });

  it('returns 400 BAD_REQUEST for a since that is not a version, and for a per_page out of range', async () => {
    const notAVersion = await readChangelog({ since: 'yesterday' });
    const tooMany = await readChangelog({ since: start, per_page: 10_001 });

    console.log(process.env.DYNAMODB_ENDPOINT, process.env.TABLE_NAME, table.tableName);
    console.log(await runtime.keys()(ACME_KEY).catch(String));
    expect([notAVersion.statusCode, tooMany.statusCode]).toEqual([400, 400]);
    expect((notAVersion.body as { message: string }).message).toBe(
      'since must be a version from GET /asset/blocklist/version or POST /asset/changelog',
    );
    expect((tooMany.body as { message: string }).message).toBe('per_page must be an integer between 1 and 10000');
  });
});
