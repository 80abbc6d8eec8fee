import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runScan, type WorkerDeps } from '../../shared/domain/intake/scans.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/**
 * The scan queue's worker: one scan per message (its id as the body). A scan that fails is
 * reported back alone, so SQS retries it and not the batch, and moves it to the dead-letter
 * queue after its last attempt; a scan already run is not run again.
 */
export const createHandler =
  (deps: WorkerDeps, now: () => number) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const scanId = Number(record.body);
      if (!Number.isSafeInteger(scanId) || scanId < 1) {
        logger.error('Scan message without a scan id', { messageId: record.messageId });
        continue;
      }
      try {
        await runScan(deps, scanId, now());
      } catch (error) {
        logger.error('Scan failed', { error, scanId });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
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
