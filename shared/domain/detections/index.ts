export {
  changeDetectionSettings,
  createConfig,
  deleteConfig,
  listConfigs,
  listingOf,
  organizationFor,
  updateConfig,
} from './configs.ts';
export { detectionDrift, validateConfigs } from './drift.ts';
export { listDetections } from './list.ts';
export {
  type CandidateDeps,
  type ConfigListing,
  DEFAULT_SETTINGS,
  type Detection,
  type DetectionConfig,
  type DetectionDeps,
  type DetectionRun,
  type DetectionSettings,
  type DetectionStore,
  type PipelineDeps,
  type RunQueue,
  type Thresholds,
} from './model.ts';
export { feedPushSource, processCandidates, runQueued } from './pipeline.ts';
export { parseRun, queueRuns, scheduleDueRuns } from './runs.ts';
