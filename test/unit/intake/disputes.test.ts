import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../shared/domain/check/types.ts';
import {
  API_NOTE,
  createDispute,
  type Dispute,
  type DisputeDeps,
  type DisputeStore,
  ETH_ONLY_NOTE,
  resolveDispute,
} from '../../../shared/domain/intake/disputes.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const ACME = { kind: 'organization', orgId: 'acme' } as const;

/** Disputes in memory, one per requester and content, as the repository keeps them. */
const memoryDisputes = (): DisputeStore & { all: Dispute[] } => {
  const all: Dispute[] = [];
  return {
    all,
    async create(dispute) {
      const same = all.find((d) => d.checkKey === dispute.checkKey && d.requester === dispute.requester);
      if (same) return { created: false, existingId: same.id };
      all.push(dispute);
      return { created: true };
    },
    async find(id) {
      return all.find((d) => d.id === id);
    },
    async list() {
      return all;
    },
    async isDisputed(checkKey) {
      return all.some((d) => d.checkKey === checkKey && d.status === 'OPEN');
    },
    async resolve(dispute, status) {
      const stored = all.find((d) => d.id === dispute.id);
      if (stored?.status !== 'OPEN') return 'stale';
      stored.status = status;
      return 'resolved';
    },
  };
};

const result = (
  status: CheckResult['status'],
  source: CheckResult['source'],
  sources: CheckResult['sources'],
): CheckResult => ({
  status,
  source,
  sources,
});
const deps = (
  answer: CheckResult,
  records = 0,
  email?: string,
): DisputeDeps & { disputes: ReturnType<typeof memoryDisputes> } => ({
  suffixes,
  disputes: memoryDisputes(),
  checker: { check: () => answer },
  lists: { byAsset: async () => Array.from({ length: records }, () => ({}) as never) },
  userEmail: async () => email,
});
const BLOCKED_BY_SERVICE = result('BLOCKED', 'service', [{ source: 'service', status: 'BLOCKED' }]);
const BLOCKED_BY_ETH = result('BLOCKED', 'eth-phishing-detect', [
  { source: 'service', status: 'UNKNOWN' },
  { source: 'eth-phishing-detect', status: 'BLOCKED' },
]);
const NOT_FOUND = result('UNKNOWN', 'service', [{ source: 'service', status: 'UNKNOWN' }]);

describe('createDispute', () => {
  it('notes that the content is blocked only by eth-phishing-detect, and says so in the answer', async () => {
    const d = deps(BLOCKED_BY_ETH);

    const answer = await createDispute(d, ACME, { content: 'https://phish.example.xyz', email: 'a@b.co' }, NOW);

    expect(answer).toEqual({ id: expect.any(String), content: 'https://phish.example.xyz', message: ETH_ONLY_NOTE });
    expect(d.disputes.all[0]?.notes).toEqual([API_NOTE, ETH_ONLY_NOTE]);
  });

  it('counts two spellings of one content and one address in two cases as the same dispute', async () => {
    const d = deps(BLOCKED_BY_SERVICE);
    await createDispute(d, ACME, { content: 'https://www.Scam.xyz/', email: 'Owner@Scam.xyz' }, NOW);

    const again = createDispute(d, ACME, { content: 'scam.xyz', email: 'owner@scam.xyz' }, NOW);

    await expect(again).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'A dispute already exists for this asset with this email',
    });
  });

  it("takes a user key's own address when the body has none", async () => {
    const d = deps(BLOCKED_BY_SERVICE, 0, 'user@example.com');

    await createDispute(d, { kind: 'user', userId: 'u-1' }, { content: 'scam.xyz' }, NOW);

    expect(d.disputes.all[0]?.email).toBe('user@example.com');
  });

  it('answers 400 for an organization key without an address', async () => {
    await expect(createDispute(deps(BLOCKED_BY_SERVICE), ACME, { content: 'scam.xyz' }, NOW)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('answers 404 for content the service has no verdict or record of', async () => {
    await expect(
      createDispute(deps(NOT_FOUND), ACME, { content: 'scam.xyz', email: 'a@b.co' }, NOW),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Asset not found',
    });
  });

  it('takes a dispute of content the service holds a report of, blocked or not', async () => {
    const answer = await createDispute(deps(NOT_FOUND, 1), ACME, { content: 'reported.xyz', email: 'a@b.co' }, NOW);

    expect(answer.content).toBe('reported.xyz');
  });
});

describe('resolveDispute', () => {
  it('refuses a dispute already resolved', async () => {
    const d = deps(BLOCKED_BY_SERVICE);
    const { id } = await createDispute(d, ACME, { content: 'scam.xyz', email: 'a@b.co' }, NOW);
    await resolveDispute(d.disputes, id, 'REJECTED', NOW);

    await expect(resolveDispute(d.disputes, id, 'UPHELD', NOW)).rejects.toMatchObject({
      message: `Dispute ${id} is already REJECTED`,
    });
  });

  it('answers 404 for an unknown dispute', async () => {
    await expect(resolveDispute(memoryDisputes(), '42', 'UPHELD', NOW)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
