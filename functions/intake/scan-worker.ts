import { runScan, type WorkerDeps } from '../../shared/domain/intake/scans.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';
import { sqsWorker } from '../../shared/workers.ts';

const scanIdOf = (body: string): number | undefined => {
  const scanId = Number(body);
  return Number.isSafeInteger(scanId) && scanId >= 1 ? scanId : undefined;
};

/**
 * The scan queue's worker: one scan per message (its id as the body), one at a time. A scan that
 * fails is reported back alone, so SQS retries it and not the batch; a scan already run is not run again.
 */
export const createHandler = (deps: WorkerDeps, now: () => number) =>
  sqsWorker({
    parse: scanIdOf,
    unreadable: 'Scan message without a scan id',
    oneAtATime: true,
    handle: (scanId) => runScan(deps, scanId, now()),
    failed: (scanId, _record, error) => logger.error('Scan failed', { error, scanId }),
  });

export const handler = workerHandler(createHandler(runtime.scanWorkerDeps(), runtime.now));

/** The local runtime's run of scans, in the process that started them; a failed scan stays PENDING, as after SQS's last retry. */
export const runScans = async (scanIds: readonly number[]): Promise<void> => {
  for (const scanId of scanIds) {
    await runScan(runtime.scanWorkerDeps(), scanId, runtime.now()).catch((error: unknown) =>
      logger.error('Scan failed', { error, scanId }),
    );
  }
};
