import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DetectionRun } from '../../shared/domain/detections/index.ts';
import type { LocalWorkers } from '../../shared/local-workers.ts';
import { WORKER_WRITES, WORKERS, type Worker } from '../routes.ts';
import { runAs } from './write-guard.ts';

/*
 * The workers the local runtime runs in this process where AWS has a queue or a log subscription.
 * The runtime imports this module when `LOCAL_WORKERS` names it (the local gateway sets it); each
 * worker runs as itself, held to its declared writes, not to those of the route that started it.
 */

const ROOT = resolve(import.meta.dirname, '../..');

/** What `LOCAL_WORKERS` is set to for the runtime to run its workers here. */
export const LOCAL_WORKERS_MODULE = pathToFileURL(import.meta.filename).href;

const run = <T>(name: Worker, call: (worker: T) => Promise<unknown>): Promise<void> =>
  runAs({ name, writes: WORKER_WRITES[name] }, async () => {
    await call((await import(pathToFileURL(resolve(ROOT, WORKERS[name])).href)) as T);
  });

/** Batches of check samples being fed in this process. */
const feeding = new Set<Promise<void>>();
/** Resolves once every batch of check samples handed to the local feed so far is fed. */
export const checkSamplesSettled = async (): Promise<void> => {
  while (feeding.size > 0) await Promise.all(feeding);
};

export const runScans: LocalWorkers['runScans'] = (scanIds) =>
  run<{ runScans: (ids: readonly number[]) => Promise<void> }>('run-scans', (worker) => worker.runScans(scanIds));

export const runDetections: LocalWorkers['runDetections'] = (runs) =>
  run<{ runLocally: (queued: readonly DetectionRun[]) => Promise<void> }>('run-detections', (worker) =>
    worker.runLocally(runs),
  );

export const feedCheckSamples: LocalWorkers['feedCheckSamples'] = (contents) => {
  const fed = run<{ feedLocally: (samples: readonly string[]) => Promise<number> }>('feed-check-samples', (worker) =>
    worker.feedLocally(contents),
  ).catch((error: unknown) => console.error(`Check samples not fed: ${String(error)}`));
  feeding.add(fed);
  void fed.finally(() => feeding.delete(fed));
};
