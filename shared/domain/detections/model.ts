import type { DirectoryStore } from '../account/organizations.ts';
import type { AssetStore } from '../allowlist/assets.ts';
import type { Checker, PublicSuffixes } from '../check/index.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import type { ReportDeps } from '../lifecycle/reports.ts';
import type { LogRef } from './certstream.ts';
import type { Resolver } from './dnstwist.ts';
import type { SourceKey } from './sources.ts';

export const CONFIDENCES = ['none', 'low', 'medium', 'high'] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export type Thresholds = { low: number; medium: number; high: number };
export type DetectionSettings = { thresholds: Thresholds; autoReport: boolean };
export const DEFAULT_SETTINGS: DetectionSettings = {
  thresholds: { low: 0.3, medium: 0.6, high: 0.85 },
  autoReport: false,
};

export type DetectionConfig = {
  id: number;
  orgId: string;
  source: SourceKey;
  brandId: number | null;
  title: string;
  description: string;
  status: 'ENABLED' | 'DISABLED';
  cron: string | null;
  config: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  lastRunAt: string | null;
  lastResultCount: number | null;
};

export type DetectionRun = {
  orgId: string;
  configId: number;
  runId: number;
  source: SourceKey;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  resultCount: number;
  queuedAt: string;
  finishedAt: string | null;
};

/**
 * Where an enabled config is found across organizations: a pull config under its schedule class
 * (with the next time its cron names), a push config under its source key (the feeds read it).
 */
export type ConfigListing = {
  slot: string;
  orgId: string;
  configId: number;
  source: SourceKey;
  cron: string | null;
  nextRunAt: string | null;
};

export type Detection = {
  id: number;
  orgId: string;
  source: SourceKey;
  configId: number | null;
  threatContent: string;
  createdAt: string;
  score: number;
  reason: string | null;
  reportStatus: 'REPORTED' | 'NOT_REPORTED';
  reportedAt: string | null;
  asset: { id: number; content: string; type: string; status: 'UNKNOWN' | 'ALLOWED' | 'BLOCKED' };
  brands: { id: number; name: string; slug: string }[];
};

export interface DetectionStore {
  settings(orgId: string): Promise<DetectionSettings>;
  putSettings(orgId: string, settings: DetectionSettings): Promise<void>;
  /** Writes a new config with its first history row (and its listing), in one transaction. */
  createConfig(config: DetectionConfig, listing?: ConfigListing): Promise<void>;
  /**
   * Replaces a config (and writes its history row) if its `updatedAt` is still `expected`; false
   * otherwise. In the same transaction, the listing under `listings.remove` goes and `listings.put` is written.
   */
  updateConfig(
    config: DetectionConfig,
    expected: string,
    listings?: { remove?: string; put?: ConfigListing },
  ): Promise<boolean>;
  /** The enabled configs listed under a slot (a schedule class or a push source), every organization's. */
  listListed(slot: string): Promise<ConfigListing[]>;
  /** Moves a listing's next run time on, if it is still `seen`; false when another scheduler moved it. */
  advanceListing(listing: ConfigListing, seen: string | null, next: string | null): Promise<boolean>;
  /** Writes a queued run unless it exists (a scheduled run has a stable id); false when it did. */
  putRunOnce(run: DetectionRun): Promise<boolean>;
  /**
   * Takes a run for one worker until `leaseUntil`: a QUEUED or FAILED run, or a RUNNING one whose
   * lease ran out (its worker died); false when it finished or another worker holds it.
   */
  claimRun(run: DetectionRun, now: string, leaseUntil: string): Promise<boolean>;
  findConfig(orgId: string, id: number): Promise<DetectionConfig | undefined>;
  listConfigs(orgId: string): Promise<DetectionConfig[]>;
  putRun(run: DetectionRun): Promise<void>;
  /** Runs queued at or after `since`, oldest first. */
  listRuns(orgId: string, since: string): Promise<DetectionRun[]>;
  /**
   * Records a detection unless one of the same asset and source exists for the organization
   * (`duplicate`); `id-taken` when another detection holds its id (nothing is written then).
   */
  record(detection: Detection): Promise<'recorded' | 'duplicate' | 'id-taken'>;
  /** Takes the one report of a detection; false when it was taken already. */
  claimReport(orgId: string, id: number): Promise<boolean>;
  releaseReport(orgId: string, id: number): Promise<void>;
  markReported(orgId: string, id: number, at: string): Promise<void>;
  /** Detections newest first, below `before` (an id), at most `limit`; `more` when older ones remain. */
  listDetections(
    orgId: string,
    before: number | undefined,
    limit: number,
  ): Promise<{ items: Detection[]; more: boolean }>;
  /** The stored read position of a config in a stream (a CT log's next entry index). */
  position(orgId: string, configId: number, stream: string): Promise<number | undefined>;
  setPosition(orgId: string, configId: number, stream: string, position: number): Promise<void>;
}

/** A name a source found, before it is an asset. */
export type Candidate = { content: string; reason: string };

/** Certificate-transparency names for one config: from its position on, and how far that read went. */
export interface CertificateNames {
  read(
    logs: readonly LogRef[] | undefined,
    from: (log: string) => Promise<number | undefined>,
    max: number,
  ): Promise<{ names: string[]; positions: Record<string, number> }>;
}

export type DetectionDeps = {
  store: DetectionStore;
  directory: Pick<DirectoryStore, 'findMembership' | 'listBrands'>;
};

/** Why the egress policy refuses a URL now (its form, or where its name resolves), or undefined when the service may call it. */
export type OutboundCheck = (url: string) => Promise<string | undefined>;

/** What writing or validating a config needs beyond the stores: the egress policy its URLs must pass. */
export type ConfigDeps = DetectionDeps & { outbound: OutboundCheck };

/** What turns candidates into detections: the check, the brands and assets, the lifecycle and an asset's records. */
export type CandidateDeps = DetectionDeps & {
  checker: Checker;
  assets: Pick<AssetStore, 'list'>;
  reports: ReportDeps;
  /** An organization's own records of an asset: its rejections hold auto-reporting back. */
  lists: Pick<ListStore, 'byAssetOf'>;
  /** The suffix data candidates are canonicalized and scored with. */
  suffixes: PublicSuffixes;
};

export type PipelineDeps = CandidateDeps & {
  resolver: Resolver;
  certificates: CertificateNames;
  /** Lookups in flight at once against the resolver. */
  resolverConcurrency: number;
};

/** Hands queued runs to the runner: a queue in AWS, the same process locally; the request does not wait. */
export interface RunQueue {
  send(runs: readonly DetectionRun[]): Promise<void>;
}
