import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DetectionRun, type PipelineDeps, runQueued } from '../../shared/domain/detections/detections.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

const isRun = (value: unknown): value is DetectionRun => {
  const run = value as Partial<DetectionRun> | null;
  return (
    typeof run === 'object' &&
    run !== null &&
    typeof run.orgId === 'string' &&
    typeof run.queuedAt === 'string' &&
    Number.isSafeInteger(run.runId) &&
    Number.isSafeInteger(run.configId)
  );
};

const parsed = (body: string): DetectionRun | undefined => {
  try {
    const run: unknown = JSON.parse(body);
    return isRun(run) ? run : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The run queue's worker: one run per message (the run as its body). A run is taken before it
 * runs, so a message delivered twice runs once; a run that fails is recorded FAILED and reported
 * back alone, so SQS retries it (taking a FAILED run again) and moves it to the dead-letter queue
 * after its last attempt.
 */
export const createHandler = (deps: () => PipelineDeps, now: () => number, leaseMs: number) => {
  const runOne = async (record: SQSRecord): Promise<void> => {
    const run = parsed(record.body);
    if (run === undefined) {
      logger.error('Detection run message without a run', { messageId: record.messageId });
      return;
    }
    try {
      const resultCount = await runQueued(deps(), run, now(), leaseMs);
      logger.info('Detection run finished', { runId: run.runId, configId: run.configId, resultCount });
    } catch (error) {
      logger.error('Detection run failed', { error, runId: run.runId, configId: run.configId });
      throw error;
    }
  };
  // One run at a time. A processor per batch: its state is the batch's; a batch that fails
  // whole is answered like any other, every message listed.
  return (event: SQSEvent): Promise<SQSBatchResponse> =>
    processPartialResponse(event, runOne, new BatchProcessor(EventType.SQS), {
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
};

export const handler = workerHandler(
  createHandler(runtime.detectionPipeline, runtime.now, runtime.DETECTION_RUN_LEASE_MS),
);

/** The local runtime's run of queued runs, in the process that queued them (after their request answered). */
export const runLocally = (runs: readonly DetectionRun[]): Promise<void> => runtime.runDetections(runs);
