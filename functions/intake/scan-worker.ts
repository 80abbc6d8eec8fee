import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { runScan, type WorkerDeps } from '../../shared/domain/intake/scans.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/**
 * The scan queue's worker: one scan per message (its id as the body). A scan that fails is
 * reported back alone, so SQS retries it and not the batch, and moves it to the dead-letter
 * queue after its last attempt; a scan already run is not run again.
 */
export const createHandler = (deps: WorkerDeps, now: () => number) => {
  const scanOne = async (record: SQSRecord): Promise<void> => {
    const scanId = Number(record.body);
    if (!Number.isSafeInteger(scanId) || scanId < 1) {
      logger.error('Scan message without a scan id', { messageId: record.messageId });
      return;
    }
    try {
      await runScan(deps, scanId, now());
    } catch (error) {
      logger.error('Scan failed', { error, scanId });
      throw error;
    }
  };
  // One scan at a time. A processor per batch: its state is the batch's; a batch that fails
  // whole is answered like any other, every message listed.
  return (event: SQSEvent): Promise<SQSBatchResponse> =>
    processPartialResponse(event, scanOne, new BatchProcessor(EventType.SQS), {
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
};

export const handler = workerHandler(createHandler(runtime.scanWorkerDeps(), runtime.now));

/** The local runtime's run of scans, in the process that started them; a failed scan stays PENDING, as after SQS's last retry. */
export const runScans = async (scanIds: readonly number[]): Promise<void> => {
  for (const scanId of scanIds) {
    await runScan(runtime.scanWorkerDeps(), scanId, runtime.now()).catch((error: unknown) =>
      logger.error('Scan failed', { error, scanId }),
    );
  }
};
