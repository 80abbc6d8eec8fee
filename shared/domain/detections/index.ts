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
export { type ListFilter, listDetections } from './list.ts';
export {
  type Candidate,
  type CandidateDeps,
  type CertificateNames,
  CONFIDENCES,
  type Confidence,
  type ConfigDeps,
  type ConfigListing,
  DEFAULT_SETTINGS,
  type Detection,
  type DetectionConfig,
  type DetectionDeps,
  type DetectionRun,
  type DetectionSettings,
  type DetectionStore,
  type OutboundCheck,
  type PipelineDeps,
  type RunQueue,
  type Thresholds,
} from './model.ts';
export { executeRun, feedPushSource, processCandidates, runQueued } from './pipeline.ts';
export { parseRun, queueRuns, scheduleDueRuns } from './runs.ts';
export { confidenceOf, profileOf } from './scoring.ts';
