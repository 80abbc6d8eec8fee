import * as detectionRuntime from '../../shared/detection-runtime.ts';
import { type DetectionRun, type PipelineDeps, parseRun, runQueued } from '../../shared/domain/detections/index.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';
import { sqsWorker } from '../../shared/workers.ts';

/**
 * The run queue's worker: one run per message (the run as its body), one at a time. A run is taken
 * before it runs, so a message delivered twice runs once; a run that fails is recorded FAILED and
 * reported back alone, so SQS retries it (taking a FAILED run again).
 */
export const createHandler = (deps: () => PipelineDeps, now: () => number, leaseMs: number) =>
  sqsWorker({
    parse: parseRun,
    unreadable: 'Detection run message without a run',
    oneAtATime: true,
    handle: async (run) => {
      const resultCount = await runQueued(deps(), run, now(), leaseMs);
      logger.info('Detection run finished', { runId: run.runId, configId: run.configId, resultCount });
    },
    failed: (run, _record, error) =>
      logger.error('Detection run failed', { error, runId: run.runId, configId: run.configId }),
  });

export const handler = workerHandler(
  createHandler(detectionRuntime.detectionPipeline, runtime.now, detectionRuntime.DETECTION_RUN_LEASE_MS),
);

/** The local runtime's run of queued runs, in the process that queued them (after their request answered). */
export const runLocally = (runs: readonly DetectionRun[]): Promise<void> => detectionRuntime.runDetections(runs);
