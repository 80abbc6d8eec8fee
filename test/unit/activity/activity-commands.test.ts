import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { activityCommand } from '../../../infra/admin/activity-commands.ts';
import { fakeActivityStore } from './fake-activity-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'activity-commands-'));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
};
const report = { organization: 'acme', kind: 'report', id: 'r-1', createdAt: '2026-03-01T10:00:00Z' };
const threat = {
  organization: 'acme',
  kind: 'threat',
  id: 't-1',
  content: 'acme-airdrop.xyz',
  assetType: 'URL',
  status: 'PENDING',
  createdAt: '2026-03-01T10:00:00Z',
};

let log: MockInstance<typeof console.log>;
const printed = () => log.mock.calls.map((call) => call.join(' '));

beforeEach(() => {
  log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => {
  log.mockRestore();
});

describe('npm run admin -- activity', () => {
  it('records every change of a file and says which were applied and which ignored', async () => {
    const { store, counter } = fakeActivityStore();

    await activityCommand(['record', file('changes.json', [report, threat, report])], store);

    expect(printed()).toEqual([
      'applied  report acme/r-1 as of 2026-03-01T10:00:00.000Z',
      'applied  threat acme/t-1 as of 2026-03-01T10:00:00.000Z',
      'ignored  report acme/r-1 as of 2026-03-01T10:00:00.000Z: the stored record is already as new or newer',
      '3 changes: 2 applied, 1 ignored',
    ]);
    expect(counter('acme', undefined, '2026-03-01')).toEqual({ reports: 1 });
  });

  it('records the activity section of a fixture file', async () => {
    const { store } = fakeActivityStore();

    await activityCommand(['record', file('fixture.json', { organizations: [], activity: [report] })], store);

    expect(printed().at(-1)).toBe('1 changes: 1 applied, 0 ignored');
  });

  it('applies nothing from a file with an invalid change, and names the change and field', async () => {
    const { store, commits } = fakeActivityStore();

    await expect(
      activityCommand(['record', file('bad.json', [report, { ...threat, assetType: 'WEBSITE' }])], store),
    ).rejects.toThrow('Change 2 of 2: assetType: Invalid asset type provided');
    expect(commits).toHaveLength(0);
  });

  it('updates fields of a recorded record as of now, and soft-deletes it', async () => {
    const { store, counter } = fakeActivityStore();
    await activityCommand(['record', file('threat.json', threat)], store);

    await activityCommand(
      ['update', JSON.stringify({ organization: 'acme', kind: 'threat', id: 't-1', status: 'BLOCKED' })],
      store,
    );
    const afterUpdate = counter('acme', undefined, '2026-03-01');
    // A second later: a change stamped in the same millisecond as the update would be ignored as not newer.
    await activityCommand(['delete', 'acme', 'threat', 't-1', new Date(Date.now() + 1000).toISOString()], store);

    expect(afterUpdate).toEqual({ threats_URL: 1 });
    expect(counter('acme', undefined, '2026-03-01')).toEqual({});
    expect(printed()[2]).toMatch(/^applied {2}threat acme\/t-1 as of \d{4}-\d\d-\d\dT.*Z$/);
    expect(printed()[3]).toMatch(/^applied {2}threat acme\/t-1 as of .*Z \(deleted\)$/);
  });

  it('sets a takedown’s liveness and assignee, and takes its status under the earlier name FILED as TODO', async () => {
    const { store } = fakeActivityStore();
    const takedown = {
      organization: 'acme',
      kind: 'takedown',
      id: 'td-1',
      status: 'FILED',
      createdAt: '2026-03-01T10:00:00Z',
    };
    await activityCommand(['record', file('takedown.json', takedown)], store);

    await activityCommand(
      [
        'update',
        JSON.stringify({
          organization: 'acme',
          kind: 'takedown',
          id: 'td-1',
          livenessStatus: 'DEAD',
          assignee: { id: 7, fullName: 'Dana Analyst' },
        }),
      ],
      store,
    );

    expect(await store.find({ organization: 'acme', kind: 'takedown', id: 'td-1' })).toMatchObject({
      status: 'TODO',
      livenessStatus: 'DEAD',
      assignee: { id: 7, fullName: 'Dana Analyst' },
    });
  });

  it('shows the stored state of a record', async () => {
    const { store } = fakeActivityStore();
    await activityCommand(['record', file('report.json', report)], store);

    await activityCommand(['show', 'acme', 'report', 'r-1'], store);

    expect(JSON.parse(printed().at(-1) as string)).toEqual({
      ...report,
      brands: [],
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
      deleted: false,
      counterShard: expect.any(Number),
    });
  });

  it.each([
    [['delete', 'acme', 'alert', 'x-1'], 'Unknown kind alert'],
    [['update', '{"organization":"acme","kind":"report","id":"r-404"}'], 'No report acme/r-404 has been recorded'],
    [['update', 'not json'], 'The change is not valid JSON'],
    [['record'], 'Give a JSON file, or - for standard input'],
    [['purge'], 'Unknown activity command: purge'],
  ])('refuses %j with a clear message', async (args, message) => {
    const { store } = fakeActivityStore();

    await expect(activityCommand(args, store)).rejects.toThrow(message);
  });
});
