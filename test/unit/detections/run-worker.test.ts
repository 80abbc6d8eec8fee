import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createHandler } from '../../../functions/detections/run-worker.ts';
import type { DetectionRun, PipelineDeps } from '../../../shared/domain/detections/index.ts';

const run = (runId: number): DetectionRun => ({
  orgId: 'acme',
  configId: 7,
  runId,
  source: 'DNS_TWIST',
  status: 'QUEUED',
  resultCount: 0,
  queuedAt: '2026-03-01T06:00:00.000Z',
  finishedAt: null,
});
const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m-${i}`, body })) }) as unknown as SQSEvent;

describe('the detection run worker', () => {
  it('runs a run it takes, skips one another worker holds, reports a failed one alone and drops a message without a run', async () => {
    const claimRun = vi.fn(async (queued: DetectionRun, _now: string, _lease: string) => queued.runId !== 2);
    const findConfig = vi.fn(async (_orgId: string, _id: number) => {
      throw new Error('table unavailable');
    });
    const deps = { store: { claimRun, findConfig } } as unknown as PipelineDeps;
    const handler = createHandler(
      () => deps,
      () => Date.parse('2026-03-01T06:00:10Z'),
      60_000,
    );

    const answer = await handler(event('not a run', JSON.stringify(run(2)), JSON.stringify(run(3))));

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-2' }]);
    expect(claimRun.mock.calls.map(([queued, now, lease]) => [queued.runId, now, lease])).toEqual([
      [2, '2026-03-01T06:00:10.000Z', '2026-03-01T06:01:10.000Z'],
      [3, '2026-03-01T06:00:10.000Z', '2026-03-01T06:01:10.000Z'],
    ]);
    expect(findConfig).toHaveBeenCalledTimes(1);
  });
});
