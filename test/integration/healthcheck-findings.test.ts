import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../infra/admin/commands.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { healthcheckFindingsRepository } from '../../shared/db/healthcheck-findings-repository.ts';
import { key } from '../../shared/db/keys.ts';
import { recordNumber } from '../../shared/domain/core/ids.ts';
import { applyActivity, parseActivityChange } from '../../shared/domain/lifecycle/activity.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('healthcheck-findings');
const store = activityRepository(table.db, table.tableName);
const findings = healthcheckFindingsRepository(table.db, table.tableName);
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
/** Any cut-off after every record of the test. */
const LATER = new Date(Date.now() + DAY).toISOString();

const takedown = (organization: string, id: string, status: string, createdAt: string, updatedAt = createdAt) =>
  applyActivity(
    suffixes,
    store,
    parseActivityChange({ organization, kind: 'takedown', id, status, createdAt, updatedAt, deleted: false }),
  );
const idOf = (organization: string, id: string) => recordNumber('takedown', organization, id);

describe('the oldest IN_PROGRESS takedowns of an organization', () => {
  it('are read oldest first, at most the limit, only before the cut-off and only the organization’s own', async () => {
    await seed(table.db, table.tableName, {
      organizations: [
        { slug: 'acme', name: 'Acme' },
        { slug: 'globex', name: 'Globex' },
      ],
    });
    for (let i = 0; i < 30; i++) await takedown('acme', `old-${i}`, 'IN_PROGRESS', daysAgo(10 + i));
    await takedown('acme', 'todo', 'TODO', daysAgo(50));
    await takedown('globex', 'foreign', 'IN_PROGRESS', daysAgo(60));

    const oldest = await findings.inProgressTakedowns('acme', LATER, 20);
    const olderThan35Days = await findings.inProgressTakedowns('acme', daysAgo(35), 20);

    expect(oldest.map((item) => item.id)).toEqual([...Array(20).keys()].map((n) => idOf('acme', `old-${29 - n}`)));
    expect(olderThan35Days.map((item) => item.id)).toEqual([29, 28, 27, 26, 25].map((n) => idOf('acme', `old-${n}`)));
  });

  it('leave the findings when they complete, and a deleted one is never listed', async () => {
    await takedown('acme', 'old-29', 'COMPLETED', daysAgo(39), daysAgo(0));
    await applyActivity(
      suffixes,
      store,
      parseActivityChange({
        organization: 'acme',
        kind: 'takedown',
        id: 'old-28',
        status: 'IN_PROGRESS',
        createdAt: daysAgo(38),
        updatedAt: daysAgo(0),
        deleted: true,
      }),
    );

    const ids = (await findings.inProgressTakedowns('acme', LATER, 5)).map((item) => item.id);

    expect(ids).toEqual([27, 26, 25, 24, 23].map((n) => idOf('acme', `old-${n}`)));
  });

  it('include, after `migrate lifecycle`, a takedown stored before the IN_PROGRESS index existed', async () => {
    await takedown('globex', 'legacy', 'IN_PROGRESS', daysAgo(70));
    // As an earlier version stored it: without its entry in the IN_PROGRESS partition.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.activity('globex', 'takedown', 'legacy'),
        UpdateExpression: 'REMOVE list3PK, list3SK',
      }),
    );
    const before = (await findings.inProgressTakedowns('globex', LATER, 20)).map((item) => item.id);

    await runAdminCommand(table.db, table.tableName, ['migrate', 'lifecycle'], {});
    const after = (await findings.inProgressTakedowns('globex', LATER, 20)).map((item) => item.id);

    expect(before).toEqual([idOf('globex', 'foreign')]);
    expect(after).toEqual([idOf('globex', 'legacy'), idOf('globex', 'foreign')]);
  });
});

describe('the oldest pending proposals of an organization', () => {
  it('are the pending proposals of its oldest reports with one, at most the limit', async () => {
    const report = (id: number, createdAt: string, reviewStatuses: string[]) =>
      applyActivity(
        suffixes,
        store,
        parseActivityChange({
          organization: 'acme',
          kind: 'report',
          id: String(id),
          createdAt,
          proposals: reviewStatuses.map((reviewStatus, n) => ({
            id: id * 10 + n,
            assetId: id * 10 + n,
            content: `scam-${id}-${n}.example`,
            type: 'URL',
            reviewStatus,
          })),
        }),
      );
    await report(1, daysAgo(30), ['PENDING', 'APPROVED', 'PENDING']);
    await report(2, daysAgo(40), ['REJECTED']);
    await report(3, daysAgo(20), ['PENDING']);
    await report(4, daysAgo(10), ['PENDING', 'PENDING']);

    const all = await findings.pendingProposals('acme', LATER, 20);
    const two = await findings.pendingProposals('acme', LATER, 2);
    const beforeFifteen = await findings.pendingProposals('acme', daysAgo(15), 20);

    expect(all.map((item) => item.id)).toEqual([10, 12, 30, 40, 41]);
    expect(two.map((item) => item.id)).toEqual([10, 12]);
    expect(beforeFifteen.map((item) => item.id)).toEqual([10, 12, 30]);
  });
});
