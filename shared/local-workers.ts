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
/** Each module's import, and the workers once it is done (so a batch of samples is handed over in the turn it is flushed in). */
const imports = new Map<string, { workers: Promise<LocalWorkers>; loaded?: LocalWorkers }>();
const importOf = (module: string) => {
  let entry = imports.get(module);
  if (entry === undefined) {
    const loading: { workers: Promise<LocalWorkers>; loaded?: LocalWorkers } = {
      workers: import(module) as Promise<LocalWorkers>,
    };
    void loading.workers.then((local) => {
      loading.loaded = local;
    });
    entry = loading;
    imports.set(module, entry);
  }
  return entry;
};
export const localWorkers = (): Promise<LocalWorkers> | undefined => {
  const module = config.localWorkers();
  return module === undefined ? undefined : importOf(module).workers;
};

/** Hands a batch of check samples to the local feed, in this turn once the workers are imported; false where there is none. */
export const feedCheckSamplesLocally = (contents: string[]): boolean => {
  const module = config.localWorkers();
  if (module === undefined) return false;
  const { workers, loaded } = importOf(module);
  if (loaded) loaded.feedCheckSamples(contents);
  else void workers.then((local) => local.feedCheckSamples(contents));
  return true;
};
