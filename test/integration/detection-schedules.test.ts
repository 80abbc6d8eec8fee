import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { key } from '../../shared/db/keys.ts';
import {
  createConfig,
  type DetectionRun,
  scheduleDueRuns,
  updateConfig,
} from '../../shared/domain/detections/index.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('detection-schedules');
await seed(table.db, table.tableName, {
  organizations: [
    { slug: 'acme', name: 'Acme' },
    { slug: 'globex', name: 'Globex' },
  ],
});
const store = detectionRepository(table.db, table.tableName);
// DNS_TWIST configs name no URL the service calls: the egress check is never asked.
const deps = { store, directory: directoryRepository(table.db, table.tableName), outbound: async () => undefined };
const acme = { kind: 'organization', orgId: 'acme' } as const;
const globex = { kind: 'organization', orgId: 'globex' } as const;
const at = (iso: string) => Date.parse(iso);
const collecting = () => {
  const sent: DetectionRun[] = [];
  return { sent, queue: { send: async (runs: readonly DetectionRun[]) => void sent.push(...runs) } };
};

describe('the detection scheduler in DynamoDB Local', () => {
  it('queues a due config once under two ticks at the same moment, moves it to its next time, and leaves the others', async () => {
    const daily = await createConfig(
      deps,
      acme,
      { slug: 'acme', source: 'DNS_TWIST', config: {}, cron: '0 6 * * *' },
      at('2026-03-01T00:00:00Z'),
    );
    await createConfig(
      deps,
      globex,
      { slug: 'globex', source: 'DNS_TWIST', config: {}, cron: '0 18 * * *' },
      at('2026-03-01T00:00:00Z'),
    );
    const early = collecting();
    const [first, second] = [collecting(), collecting()];

    await scheduleDueRuns({ store, queue: early.queue }, ['hourly'], at('2026-03-01T05:00:00Z'));
    await Promise.all([
      scheduleDueRuns({ store, queue: first.queue }, ['hourly'], at('2026-03-01T06:00:05Z')),
      scheduleDueRuns({ store, queue: second.queue }, ['hourly'], at('2026-03-01T06:00:05Z')),
    ]);
    const queued = [...first.sent, ...second.sent];
    const listings = await store.listListed('hourly');
    const runs = await store.listRuns('acme', '2026-03-01T00:00:00.000Z');

    expect(early.sent).toEqual([]);
    expect(new Set(queued.map((run) => run.runId)).size).toBe(1);
    expect(queued[0]).toMatchObject({ orgId: 'acme', configId: daily.id, queuedAt: '2026-03-01T06:00:00.000Z' });
    expect(runs.map((run) => [run.configId, run.status])).toEqual([[daily.id, 'QUEUED']]);
    expect(listings.map((listing) => [listing.orgId, listing.nextRunAt]).sort()).toEqual([
      ['acme', '2026-03-02T06:00:00.000Z'],
      ['globex', '2026-03-01T18:00:00.000Z'],
    ]);
  });

  it('lets one worker of many take a queued run, and takes it again once its lease ran out', async () => {
    const [run] = (await store.listRuns('acme', '2026-03-01T00:00:00.000Z')) as [DetectionRun];

    const taken = await Promise.all(
      Array.from({ length: 6 }, () => store.claimRun(run, '2026-03-01T06:01:00.000Z', '2026-03-01T06:16:00.000Z')),
    );
    const retaken = await store.claimRun(run, '2026-03-01T06:17:00.000Z', '2026-03-01T06:32:00.000Z');

    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(retaken).toBe(true);
  });

  it('takes a disabled config off its schedule and puts a changed cron under its new class', async () => {
    const created = await createConfig(
      deps,
      acme,
      { slug: 'acme', source: 'CERTSTREAM', config: {}, cron: '*/15 * * * *' },
      at('2026-03-01T00:00:00Z'),
    );
    const moved = await updateConfig(
      deps,
      acme,
      { slug: 'acme', configId: created.id, cron: '0 0 * * *' },
      at('2026-03-01T00:01:00Z'),
    );
    const inDaily = (await store.listListed('daily')).map((listing) => listing.configId);
    const inQuarter = (await store.listListed('quarter-hourly')).map((listing) => listing.configId);
    await updateConfig(
      deps,
      acme,
      { slug: 'acme', configId: moved.id, status: 'DISABLED' },
      at('2026-03-01T00:02:00Z'),
    );
    const tick = collecting();
    await scheduleDueRuns({ store, queue: tick.queue }, ['daily'], at('2026-03-02T00:00:00Z'));

    expect(inDaily).toEqual([created.id]);
    expect(inQuarter).toEqual([]);
    expect(await store.listListed('daily')).toEqual([]);
    expect(tick.sent).toEqual([]);
  });

  it('answers a cron that is no cron with 400 naming body.cron', async () => {
    await expect(
      createConfig(deps, acme, { slug: 'acme', source: 'DNS_TWIST', config: {}, cron: '61 * * * *' }, Date.now()),
    ).rejects.toMatchObject({ issues: [{ path: 'body.cron' }] });
  });

  it('lists configs written before listings existed once, keeping a listing the scheduler moved on', async () => {
    const old = await createConfig(
      deps,
      globex,
      { slug: 'globex', source: 'ASSET_CHECK', config: {} },
      at('2026-03-01T00:00:00Z'),
    );
    await table.db.send(
      new DeleteCommand({ TableName: table.tableName, Key: key.detectionListing('ASSET_CHECK', 'globex', old.id) }),
    );
    const hourlyBefore = await store.listListed('hourly');

    const first = await runAdminCommand(table.db, table.tableName, ['migrate', 'detections'], {});
    const second = await runAdminCommand(table.db, table.tableName, ['migrate', 'detections'], {});

    expect(first).toMatch(/ 1 listed for the scheduler and feeds, \d+ listed before$/);
    expect(second).toMatch(/ 0 listed for the scheduler and feeds/);
    expect((await store.listListed('ASSET_CHECK')).map((listing) => listing.configId)).toEqual([old.id]);
    expect(await store.listListed('hourly')).toEqual(hourlyBefore);
  });
});
