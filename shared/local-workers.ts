import { config } from './config.ts';
import type { DetectionRun } from './domain/detections/index.ts';

/**
 * The local runtime's in-process workers (`infra/local/local-workers.ts`), where AWS has a queue or
 * a log subscription: the module `LOCAL_WORKERS` names, which the local gateway sets. Unset (AWS, a
 * bundle run by hand), the work stays queued.
 */
export type LocalWorkers = {
  runScans(scanIds: readonly number[]): Promise<void>;
  runDetections(runs: readonly DetectionRun[]): Promise<void>;
  feedCheckSamples(contents: string[]): void;
};
const importedWorkers = new Map<string, Promise<LocalWorkers>>();
/** The workers once imported, so that a batch of samples is handed over in the same turn it is flushed in. */
const loadedWorkers = new WeakMap<Promise<LocalWorkers>, LocalWorkers>();
export const localWorkers = (): Promise<LocalWorkers> | undefined => {
  const module = config.localWorkers();
  if (module === undefined) return undefined;
  let workers = importedWorkers.get(module);
  if (workers === undefined) {
    const imported = import(module) as Promise<LocalWorkers>;
    workers = imported;
    void imported.then((local) => loadedWorkers.set(imported, local));
    importedWorkers.set(module, imported);
  }
  return workers;
};

/** Hands a batch of check samples to the local feed, in this turn once the workers are imported; false where there is none. */
export const feedCheckSamplesLocally = (contents: string[]): boolean => {
  const workers = localWorkers();
  if (workers === undefined) return false;
  const loaded = loadedWorkers.get(workers);
  if (loaded) loaded.feedCheckSamples(contents);
  else void workers.then((local) => local.feedCheckSamples(contents));
  return true;
};
