import { describe, expect, it } from 'vitest';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { disputeRepository } from '../../shared/db/dispute-repository.ts';
import { scanRepository } from '../../shared/db/scan-repository.ts';
import { verdictFeed } from '../../shared/db/verdict-log.ts';
import type { Dispute } from '../../shared/domain/intake/disputes.ts';
import { positionAt } from '../../shared/domain/verdict-feed/index.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('disputes');
const disputes = disputeRepository(table.db, table.tableName);
const index = checkIndexRepository(table.db, table.tableName, { ttlMs: 0, maxEntries: 0 });
const feed = verdictFeed(table.db, table.tableName);
const scans = scanRepository(table.db, table.tableName);
const started = positionAt(Date.now() - 1_000);

let ids = 1_000;
const dispute = (checkKey: string, requester: string): Dispute => ({
  id: String(++ids),
  content: checkKey,
  checkKey,
  type: 'URL',
  requester,
  notes: ['Created through the API'],
  status: 'OPEN',
  createdAt: '2026-11-26T10:00:00.000Z',
});

describe('the dispute store on DynamoDB Local', () => {
  it('keeps one of many concurrent disputes of one requester and content, and names it to the others', async () => {
    const attempts = Array.from({ length: 8 }, () => dispute('race.xyz', 'someone@example.com'));

    const outcomes = await Promise.all(attempts.map((attempt) => disputes.create(attempt)));

    const created = outcomes.flatMap((outcome, i) => (outcome.created ? [attempts[i]?.id] : []));
    expect(created).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.created)).toEqual(
      Array.from({ length: 7 }, () => ({ created: false, existingId: created[0] })),
    );
    expect((await disputes.list()).filter((stored) => stored.checkKey === 'race.xyz')).toHaveLength(1);
  });

  it('allowlists a content once however many of its disputes are upheld at once, through the verdict log', async () => {
    const many = Array.from({ length: 5 }, (_, i) => dispute('upheld-many.xyz', `person-${i}@example.com`));
    for (const each of many) await disputes.create(each);

    await Promise.all(many.map((each) => disputes.resolve(each, 'UPHELD', '2026-11-26T11:00:00.000Z')));

    expect(await index.lookup(['upheld-many.xyz'])).toEqual([{ allow: 1, block: 0, watch: 0 }]);
    const changes = (await feed.readFrom(started)).filter((change) => change.key === 'upheld-many.xyz');
    expect(changes.map((change) => [change.seq, change.bits])).toEqual([[1, 1]]);
    expect(await disputes.isDisputed('upheld-many.xyz')).toBe(false);
  });

  it('resolves a dispute once: a second decision finds it stale', async () => {
    const one = dispute('twice.xyz', 'a@example.com');
    await disputes.create(one);

    const first = await disputes.resolve(one, 'REJECTED', '2026-11-26T11:00:00.000Z');
    const second = await disputes.resolve(one, 'UPHELD', '2026-11-26T11:00:01.000Z');

    expect([first, second]).toEqual(['resolved', 'stale']);
    expect(await index.lookup(['twice.xyz'])).toEqual([undefined]);
    expect((await disputes.find(one.id))?.status).toBe('REJECTED');
  });

  it('tells an open dispute of a content from closed ones', async () => {
    await disputes.create(dispute('open.xyz', 'a@example.com'));

    expect(await disputes.isDisputed('open.xyz')).toBe(true);
    expect(await disputes.isDisputed('nobody-disputes.xyz')).toBe(false);
  });
});

describe('the scan store on DynamoDB Local', () => {
  it('completes a scan once, and lets one of concurrent scans take the report of a content', async () => {
    const scan = {
      id: 77,
      content: 'x.xyz',
      type: 'URL' as const,
      checkKey: 'x.xyz',
      owner: 'org:acme',
      organization: 'acme',
      status: 'PENDING' as const,
      result: null,
      createdAt: '2026-11-26T10:00:00.000Z',
      completedAt: null,
    };
    await scans.create([scan]);
    const result = { verdict: 'BENIGN' as const, score: 0, signals: [] };

    const completions = await Promise.all([
      scans.complete(77, result, '2026-11-26T10:00:01.000Z'),
      scans.complete(77, result, '2026-11-26T10:00:02.000Z'),
    ]);
    const claims = await Promise.all([1, 2, 3].map((id) => scans.claimReport('acme', 'x.xyz', id)));

    expect(completions.filter(Boolean)).toHaveLength(1);
    expect((await scans.find(77))?.status).toBe('COMPLETED');
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
