import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { memoryArtifactStore } from '../../shared/db/blocklist-artifact-store.ts';
import { verdictExportRepository } from '../../shared/db/verdict-export-repository.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import { ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { addAssets, removeAsset } from '../../shared/domain/allowlist/assets.ts';
import { blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { cursorCodec } from '../../shared/domain/core/cursor.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import {
  EXPORT_STATUSES,
  LOG_TIMING,
  positionAt,
  readWholeIndex,
  replicatedIndex,
  statusOf,
} from '../../shared/domain/verdict-feed/index.ts';
import * as runtime from '../../shared/runtime.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('verdict-clients');
// After the table: a function module builds its production dependencies when it loads.
const { createHandler: createChangelogHandler } = await import('../../functions/check/changelog.ts');
const { createHandler: createVersionHandler } = await import('../../functions/check/blocklist-version.ts');
const { createHandler: createListHandler } = await import('../../functions/lookups/list.ts');
const feed = verdictFeed(table.db, table.tableName);
const assets = assetRepository(table.db, table.tableName);
const groups = assetGroupRepository(table.db, table.tableName);
const activity = activityRepository(table.db, table.tableName);
const replica = replicatedIndex({ log: feed });
/**
 * The clients' side of the service runs one settle window ahead of the writers (every write here
 * is awaited before a read), so changes are handed out and versions move without waiting for it.
 */
const later = () => Date.now() + LOG_TIMING.settleMs + 1;
const changelog = createChangelogHandler({ keys: runtime.keys(), feed, now: later, timer: systemTimer });
const version = createVersionHandler({
  keys: runtime.keys(),
  blocklist: blocklist({ suffixes, log: feed, artifacts: memoryArtifactStore(), pollMs: 0, now: later }),
  cdnUrl: undefined,
});
const exportList = createListHandler({
  keys: runtime.keys(),
  verdicts: verdictExportRepository(table.db, table.tableName),
  cursors: cursorCodec(() => 'sync-test-secret'),
  now: Date.now,
});

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

const threat = (
  id: string,
  content: string,
  status: string,
  updatedAt: string,
  watchlisted = false,
  assetType = 'URL',
) =>
  applyActivity(suffixes, activity, {
    organization: 'acme',
    kind: 'threat',
    id,
    content,
    assetType,
    status,
    watchlisted,
    brands: [],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt,
  } as never);

const start = positionAt(Date.now() - 1);

/** The service's live verdicts, read from the index itself: content → [status, watchStatus]. */
const serviceVerdicts = async () => {
  const { keys, states } = await readWholeIndex(feed);
  return Object.fromEntries(
    keys.flatMap((key, i) => {
      const bits = (states[i] as number) % 8;
      return statusOf(bits) === 'UNKNOWN' ? [] : [[key, [statusOf(bits), bits & 4 ? 'ENABLED' : 'DISABLED']]];
    }),
  );
};

type Held = { status: string; watchStatus: string; version: string };
/** Keeps a verdict unless the copy holds a later version of the same key; `UNKNOWN` stays as a marker of that version. */
const keep = (copy: Map<string, Held>, content: string, held: Held) => {
  const current = copy.get(content);
  if (current === undefined || held.version > current.version) copy.set(content, held);
};
const liveOf = (copy: Map<string, Held>) =>
  Object.fromEntries(
    [...copy].flatMap(([content, held]) =>
      held.status === 'UNKNOWN' ? [] : [[content, [held.status, held.watchStatus]]],
    ),
  );

/** The full export: every type and status from an early start date, each paged to the end. */
const exportAll = async (copy: Map<string, Held>) => {
  let pages = 0;
  for (const type of ASSET_TYPES) {
    for (const status of EXPORT_STATUSES) {
      let next: string | null = null;
      do {
        const body = { type, status, startDate: '2026-01-01', per_page: 2, ...(next ? { next_page: next } : {}) };
        const response = await call(
          exportList,
          apiEvent({ method: 'POST', path: '/v2/asset/list', apiKey: ACME_KEY, body }),
        );
        const page = response.body as { assets: (Held & { content: string })[]; next_page: string | null };
        for (const { content, ...held } of page.assets) keep(copy, content, held);
        next = page.next_page;
        pages++;
      } while (next !== null);
    }
  }
  return pages;
};

/** Follows the changelog from `since` to its end, applying each change the copy does not hold a later version of. */
const follow = async (copy: Map<string, Held>, since: string) => {
  let body: Record<string, unknown> = { since, per_page: 5 };
  for (;;) {
    const page = (await readChangelog(body)).body as Page;
    for (const { content, status, watchStatus, version } of page.changes)
      keep(copy, content, { status, watchStatus, version });
    if (page.next_page === null) return page.version;
    body = { since, per_page: 5, next_page: page.next_page };
  }
};

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
});

describe('clients that keep the verdicts locally', () => {
  it('end equal to the service verdict of every entry after following the changelog, page by page', async () => {
    const copy = new Map<string, [string, string]>();
    const { results: brand } = await addAssets(suffixes, assets, groups, 'acme', [
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
    await addAssets(suffixes, assets, groups, 'globex', [{ content: 'sync-brand.example', type: 'URL' }]);

    await syncFrom(copy, middle);

    const service = await serviceVerdicts();
    expect(Object.fromEntries(copy)).toEqual(service);
    expect(Object.fromEntries(copy)).toEqual({
      'sync-brand.example': ['ALLOWED', 'DISABLED'],
      'sync-airdrop.example': ['BLOCKED', 'ENABLED'],
      'sync-phish.example': ['BLOCKED', 'DISABLED'],
    });
  });

  it('returns the version of the newest settled change and the number of live verdicts', async () => {
    const newest = (await feed.readFrom(start)).at(-1);
    await replica.sync();

    const response = await call(
      version,
      apiEvent({ method: 'GET', path: '/v2/asset/blocklist/version', apiKey: ACME_KEY }),
    );

    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({ version: newest?.version, updatedAt: newest?.changedAt, entries: 3 });
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

    expect([notAVersion.statusCode, tooMany.statusCode]).toEqual([400, 400]);
    expect((notAVersion.body as { message: string }).message).toBe(
      'since must be a version from GET /asset/blocklist/version or POST /asset/changelog',
    );
    expect((tooMany.body as { message: string }).message).toBe('per_page must be an integer between 1 and 10000');
  });

  it('end equal to the service verdicts after the full export and the changelog since the version read before it, while writers keep changing verdicts', async () => {
    const ops = fc.sample(
      fc.record({
        target: fc.integer({ min: 0, max: 11 }),
        status: fc.constantFrom('BLOCKED', 'APPROVED', 'REJECTED'),
        watch: fc.boolean(),
      }),
      { numRuns: 60, seed: 20_261_125 },
    );
    let clock = Date.parse('2026-04-01T00:00:00Z');
    /** One writer's change: a threat of one of twelve contents (URL and ADDRESS) moves, or an asset is allowlisted and removed. */
    const write = async ({ target, status, watch }: (typeof ops)[number]) => {
      clock += 60_000;
      const updatedAt = new Date(clock).toISOString();
      if (target < 8) {
        const address = `0x${String(target).repeat(40)}`;
        return target % 2 === 0
          ? threat(`w-${target}`, `sync-writer-${target}.example`, status, updatedAt, watch)
          : threat(`w-${target}`, address, status, updatedAt, watch, 'ADDRESS');
      }
      const { results } = await addAssets(suffixes, assets, groups, 'globex', [
        { content: `https://sync-allow-${target}.example`, type: 'URL' },
      ]);
      const added = results[0];
      if (watch && added?.success) await removeAsset(assets, 'globex', added.id);
    };
    for (const op of ops.slice(0, 20)) await write(op);
    await replica.sync();
    const read = await call(
      version,
      apiEvent({ method: 'GET', path: '/v2/asset/blocklist/version', apiKey: ACME_KEY }),
    );
    const since = (read.body as { version: string }).version;
    const copy = new Map<string, Held>();

    let written = 0;
    const writers = (async () => {
      for (const op of ops.slice(20)) {
        await write(op);
        written++;
      }
    })();
    const pages = await exportAll(copy);
    const writtenDuringExport = written;
    await follow(copy, since);
    await writers;
    await follow(copy, since);

    expect(writtenDuringExport).toBeGreaterThan(0);
    expect(pages).toBeGreaterThan(ASSET_TYPES.length * EXPORT_STATUSES.length);
    expect(liveOf(copy)).toEqual(await serviceVerdicts());
    expect(Object.keys(liveOf(copy)).length).toBeGreaterThan(5);
  }, 120_000);
});
