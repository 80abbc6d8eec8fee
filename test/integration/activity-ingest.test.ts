import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSampleEvent } from '../../infra/local/sample-event.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { metricsRepository } from '../../shared/db/metrics-repository.ts';
import { organizationMetrics } from '../../shared/domain/insights/metrics.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';
import { asWorker } from '../fixtures/workers.ts';

const table = await createTestTable('activity-ingest');
const { createHandler } = await import('../../functions/activity/ingest.ts');
const deadLettered: { id: string; body: string; reason: string }[] = [];
const handler = asWorker(
  'ingest-activity',
  createHandler({
    suffixes,
    store: activityRepository(table.db, table.tableName),
    deadLetters: {
      put: async (message, reason) => {
        deadLettered.push({ id: message.id, body: message.body, reason });
      },
    },
  }),
);
const stores = {
  metrics: metricsRepository(table.db, table.tableName),
  directory: directoryRepository(table.db, table.tableName),
};
const TODAY = '2026-12-31';

const message = (messageId: string, body: string): SQSRecord => ({
  messageId,
  receiptHandle: `handle-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:activity',
  awsRegion: 'us-east-1',
});
const threat = (id: string, status: string) =>
  JSON.stringify({
    organization: 'acme',
    kind: 'threat',
    id,
    content: `${id}.example`,
    assetType: 'URL',
    status,
    brands: ['acme-wallet'],
    createdAt: '2026-06-01T10:00:00Z',
    updatedAt: '2026-06-01T12:00:00Z',
  });
const ingest = (records: SQSRecord[]) => handler({ Records: records } satisfies SQSEvent);
const orgMetrics = () => organizationMetrics(stores, 'acme', { startDate: '2026-06-01', endDate: '2026-06-01' }, TODAY);

beforeAll(async () => {
  const directory = directoryRepository(table.db, table.tableName);
  await directory.putOrganization({ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] });
  await directory.putBrand({ orgId: 'acme', slug: 'acme-wallet', name: 'Acme Wallet' });
});

describe('activity ingest Lambda (SQS)', () => {
  it('moves the malformed message to the dead-letter queue at once, and applies the others exactly once when the batch is retried', async () => {
    const batch = [
      message('m-1', threat('t-1', 'BLOCKED')),
      message('m-2', '{"organization":"acme","kind":"threat",'),
      message('m-3', threat('t-2', 'APPROVED')),
      message('m-4', threat('t-3', 'PENDING')),
    ];

    const first = await ingest(batch);
    const afterFirst = await orgMetrics();
    const retry = await ingest(batch);
    const afterRetry = await orgMetrics();

    expect(first).toEqual({ batchItemFailures: [] });
    expect(retry).toEqual({ batchItemFailures: [] });
    expect(deadLettered.splice(0).map(({ id, body }) => ({ id, body }))).toEqual([
      { id: 'm-2', body: '{"organization":"acme","kind":"threat",' },
      { id: 'm-2', body: '{"organization":"acme","kind":"threat",' },
    ]);
    expect(afterFirst.metrics.newThreats).toBe(2);
    expect(afterRetry).toEqual(afterFirst);
  });

  it('dead-letters a message that is JSON but not a valid change, and reports one naming an unknown brand for a retry', async () => {
    const result = await ingest([
      message('m-5', JSON.stringify({ organization: 'acme', kind: 'threat', id: 't-9', createdAt: 'soon' })),
      message(
        'm-6',
        JSON.stringify({
          organization: 'acme',
          kind: 'report',
          id: 'r-9',
          brands: ['acme-nope'],
          createdAt: '2026-06-02T00:00:00Z',
        }),
      ),
      message(
        'm-7',
        JSON.stringify({ organization: 'acme', kind: 'report', id: 'r-1', createdAt: '2026-06-02T00:00:00Z' }),
      ),
    ]);

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-6' }] });
    expect(deadLettered.splice(0)).toEqual([
      {
        id: 'm-5',
        body: JSON.stringify({ organization: 'acme', kind: 'threat', id: 't-9', createdAt: 'soon' }),
        reason: expect.stringMatching(/^Invalid activity change: /),
      },
    ]);
    expect(
      await activityRepository(table.db, table.tableName).find({ organization: 'acme', kind: 'report', id: 'r-1' }),
    ).toMatchObject({ createdAt: '2026-06-02T00:00:00.000Z' });
  });

  it('reports a message that cannot be applied for a retry when the dead-letter queue refuses it', async () => {
    const unavailable = createHandler({
      suffixes,
      store: activityRepository(table.db, table.tableName),
      deadLetters: {
        put: async () => {
          throw new Error('queue unavailable');
        },
      },
    });

    const result = await unavailable({ Records: [message('m-8', 'not json')] });

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-8' }] });
  });

  it('applies the sample event in events/ingest-sqs.json without failures', async () => {
    const sample = readSampleEvent('events/ingest-sqs.json') as SQSEvent;

    const result = await handler(sample);

    expect(result).toEqual({ batchItemFailures: [] });
  });
});
