import { BadRequestError, ForbiddenError, NotFoundError, UnprocessableContentError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { detectAssetType } from '../allowlist/asset-detection.ts';
import type { AssetStore } from '../allowlist/assets.ts';
import type { Checker } from '../check/index.ts';
import { entryKeyOf } from '../check/index.ts';
import { orderedBounds } from '../core/dates.ts';
import { assetIdOf, newRecordId, stableId } from '../core/ids.ts';
import type { ListStore } from '../lifecycle/lists.ts';
import { createReport, type ReportDeps } from '../lifecycle/reports.ts';
import { brandIdOf } from '../lifecycle/reviews.ts';
import { brandProfile, evaluateThreat } from '../threat-engine/engine.ts';
import { type LogRef, matchNames } from './certstream.ts';
import { mapBounded, permutations, type Resolver } from './dnstwist.ts';
import { checkedCron, nextCronTime, parseCron, type ScheduleClass, scheduleClassOf } from './schedules.ts';
import {
  outboundUrlsOf,
  type PermutationFamily,
  type Source,
  type SourceKey,
  sourceOf,
  validateConfig,
} from './sources.ts';
import { configYields, DEFAULT_LOOKBACK_HOURS, DEFAULT_MIN_RESULTS } from './yields.ts';

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

/**
 * Refuses a config naming a URL the service may not call (a CERTSTREAM log at a loopback,
 * private or metadata address, over http, with credentials): 400 naming the field, the first
 * refused in config order; `where` is where the config is in the request (`body.`).
 */
const checkOutbound = async (
  outbound: OutboundCheck,
  source: Source,
  config: Record<string, unknown>,
  where: string,
) => {
  const checked = await Promise.all(
    outboundUrlsOf(source, config).map(async (target) => ({ ...target, refusal: await outbound(target.url) })),
  );
  const refused = checked.find((target) => target.refusal !== undefined);
  if (refused === undefined) return;
  const path = `${where}${refused.path}`;
  const message = `${path} must be a public https URL: ${refused.refusal}`;
  throw new BadRequestError(message, { issues: [{ message, path }] });
};

/** What turns candidates into detections: the check, the brands and assets, the lifecycle and an asset's records. */
export type CandidateDeps = DetectionDeps & {
  checker: Checker;
  assets: Pick<AssetStore, 'list'>;
  reports: ReportDeps;
  /** An organization's own records of an asset: its rejections hold auto-reporting back. */
  lists: Pick<ListStore, 'byAssetOf'>;
};

export type PipelineDeps = CandidateDeps & {
  resolver: Resolver;
  certificates: CertificateNames;
  /** Lookups in flight at once against the resolver. */
  resolverConcurrency: number;
};

const NO_ACCESS = 'API key does not have access to this organization';

/** The organization a caller acts for by `slug`: its organization key's own, or one its user is an active member of. */
export const organizationFor = async (
  directory: Pick<DirectoryStore, 'findMembership'>,
  caller: Caller,
  slug: string,
): Promise<string> => {
  if (caller.kind === 'organization') {
    if (caller.orgId !== slug) throw new ForbiddenError(NO_ACCESS);
    return slug;
  }
  if ((await directory.findMembership(caller.userId, slug))?.status !== 'ACTIVE') throw new ForbiddenError(NO_ACCESS);
  return slug;
};

/**
 * An organization's detection settings changed by the operator: auto-reporting on or off, and
 * the confidence thresholds, each in [0, 1] and in order (low ≤ medium ≤ high).
 */
export const changeDetectionSettings = async (
  store: Pick<DetectionStore, 'settings' | 'putSettings'>,
  orgId: string,
  change: { autoReport?: boolean; thresholds?: Thresholds },
): Promise<DetectionSettings> => {
  const current = await store.settings(orgId);
  const next = {
    autoReport: change.autoReport ?? current.autoReport,
    thresholds: change.thresholds ?? current.thresholds,
  };
  const { low, medium, high } = next.thresholds;
  const inRange = [low, medium, high].every((value) => Number.isFinite(value) && value >= 0 && value <= 1);
  if (!inRange || low > medium || medium > high) {
    throw new BadRequestError('Thresholds must be numbers from 0 to 1 with low ≤ medium ≤ high');
  }
  await store.putSettings(orgId, next);
  return next;
};

export const confidenceOf = (score: number, { low, medium, high }: Thresholds): Confidence =>
  score >= high ? 'high' : score >= medium ? 'medium' : score >= low ? 'low' : 'none';

const configView = ({ orgId: _org, deletedAt: _deleted, ...config }: DetectionConfig) => config;

const findLive = async (store: DetectionStore, orgId: string, configId: number) => {
  const config = await store.findConfig(orgId, configId);
  if (config === undefined || config.deletedAt !== null)
    throw new NotFoundError(`Detection config ${configId} not found`);
  return config;
};

const sourceFor = (key: string) => {
  const source = sourceOf(key);
  if (source === undefined) {
    throw new BadRequestError(`Unknown detection source ${key}`, {
      issues: [{ message: `Unknown detection source ${key}`, path: 'body.source' }],
    });
  }
  return source;
};

const checkCron = (source: { mode: string; key: string }, cron: string | null | undefined) => {
  if (cron !== undefined && cron !== null && source.mode !== 'pull') {
    throw new BadRequestError(`cron is only accepted for scheduled sources; ${source.key} is push-based`, {
      issues: [{ message: `cron is only accepted for scheduled sources`, path: 'body.cron' }],
    });
  }
  if (cron !== undefined && cron !== null) checkedCron(cron);
};

/**
 * Where an enabled config is listed: a pull config under the schedule class of its cron (its
 * source's default when it has none), with the first time after `now` that cron names; a push
 * config under its source. A disabled or deleted config is not listed.
 */
export const listingOf = (config: DetectionConfig, now: number): ConfigListing | undefined => {
  const source = sourceOf(config.source);
  if (source === undefined || config.status !== 'ENABLED' || config.deletedAt !== null) return undefined;
  const base = { orgId: config.orgId, configId: config.id, source: config.source };
  if (source.mode === 'push') return { ...base, slot: config.source, cron: null, nextRunAt: null };
  const text = config.cron ?? source.defaultCron;
  const cron = text === null ? undefined : parseCron(text);
  if (cron === undefined) return undefined;
  const next = nextCronTime(cron, now);
  return {
    ...base,
    slot: scheduleClassOf(cron),
    cron: text,
    nextRunAt: next === undefined ? null : new Date(next).toISOString(),
  };
};

export const listConfigs = async (deps: DetectionDeps, caller: Caller, slug: string) => {
  const orgId = await organizationFor(deps.directory, caller, slug);
  const configs = (await deps.store.listConfigs(orgId)).filter((config) => config.deletedAt === null);
  const bySource = new Map<string, ReturnType<typeof configView>[]>();
  for (const config of configs)
    bySource.set(config.source, [...(bySource.get(config.source) ?? []), configView(config)]);
  return { sources: [...bySource].map(([source, list]) => ({ source, configs: list })) };
};

export const createConfig = async (
  deps: ConfigDeps,
  caller: Caller,
  body: {
    slug: string;
    source: string;
    config: unknown;
    cron?: string;
    brandId?: number;
    title?: string;
    description?: string;
  },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const source = sourceFor(body.source);
  checkCron(source, body.cron);
  const config = validateConfig(source, body.config);
  await checkOutbound(deps.outbound, source, config, 'body.');
  if (body.brandId !== undefined) {
    const brands = await deps.directory.listBrands(orgId);
    if (!brands.some((brand) => brandIdOf(brand) === body.brandId)) {
      throw new ForbiddenError('Brand does not belong to your organization');
    }
  }
  const at = new Date(now).toISOString();
  const created: DetectionConfig = {
    id: newRecordId(now),
    orgId,
    source: source.key,
    brandId: body.brandId ?? null,
    title: body.title ?? source.name,
    description: body.description ?? '',
    status: 'ENABLED',
    cron: body.cron ?? null,
    config,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    lastRunAt: null,
    lastResultCount: null,
  };
  await deps.store.createConfig(created, listingOf(created, now));
  return configView(created);
};

export const updateConfig = async (
  deps: ConfigDeps,
  caller: Caller,
  body: {
    slug: string;
    configId: number;
    status?: 'ENABLED' | 'DISABLED';
    cron?: string | null;
    title?: string;
    description?: string;
    config?: unknown;
    mergeConfig?: boolean;
  },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const current = await findLive(deps.store, orgId, body.configId);
  const source = sourceFor(current.source);
  checkCron(source, body.cron);
  const merged =
    body.config === undefined
      ? current.config
      : body.mergeConfig === false ||
          typeof body.config !== 'object' ||
          body.config === null ||
          Array.isArray(body.config)
        ? body.config
        : { ...current.config, ...(body.config as Record<string, unknown>) };
  const config = validateConfig(source, merged);
  await checkOutbound(deps.outbound, source, config, 'body.');
  const next: DetectionConfig = {
    ...current,
    status: body.status ?? current.status,
    cron: body.cron === undefined ? current.cron : body.cron,
    title: body.title ?? current.title,
    description: body.description ?? current.description,
    config,
    updatedAt: new Date(Math.max(now, Date.parse(current.updatedAt) + 1)).toISOString(),
  };
  const listings = { remove: listingOf(current, now)?.slot, put: listingOf(next, now) };
  if (!(await deps.store.updateConfig(next, current.updatedAt, listings))) {
    throw new BadRequestError('The config changed while it was being updated; try again');
  }
  return configView(next);
};

export const deleteConfig = async (
  deps: DetectionDeps,
  caller: Caller,
  body: { slug: string; configId: number },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const current = await findLive(deps.store, orgId, body.configId);
  const at = new Date(Math.max(now, Date.parse(current.updatedAt) + 1)).toISOString();
  const deleted = { ...current, deletedAt: at, updatedAt: at };
  if (!(await deps.store.updateConfig(deleted, current.updatedAt, { remove: listingOf(current, now)?.slot }))) {
    throw new NotFoundError(`Detection config ${body.configId} not found`);
  }
  return { id: current.id, deletedAt: at };
};

/** The configs a run or validation takes: one by id, a source's, or every one; disabled ones only on request. */
const selectConfigs = async (
  store: DetectionStore,
  orgId: string,
  pick: { configId?: number; source?: string; includeDisabled?: boolean },
) => {
  if (pick.configId !== undefined) return [await findLive(store, orgId, pick.configId)];
  if (pick.source !== undefined) sourceFor(pick.source);
  return (await store.listConfigs(orgId)).filter(
    (config) =>
      config.deletedAt === null &&
      (pick.source === undefined || config.source === pick.source) &&
      (pick.includeDisabled === true || config.status === 'ENABLED'),
  );
};

/** Hands queued runs to the runner: a queue in AWS, the same process locally; the request does not wait. */
export interface RunQueue {
  send(runs: readonly DetectionRun[]): Promise<void>;
}

export const queueRuns = async (
  deps: DetectionDeps & { queue: RunQueue },
  caller: Caller,
  body: { slug: string; configId?: number; source?: string; includeDisabled?: boolean },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const configs = await selectConfigs(deps.store, orgId, body);
  const at = new Date(now).toISOString();
  const runs = configs.map(
    (config, i): DetectionRun => ({
      orgId,
      configId: config.id,
      runId: newRecordId(now) + i,
      source: config.source,
      status: 'QUEUED',
      resultCount: 0,
      queuedAt: at,
      finishedAt: null,
    }),
  );
  for (const run of runs) await deps.store.putRun(run);
  await deps.queue.send(runs);
  return { runs: runs.map((run) => ({ configId: run.configId, runId: run.runId, status: run.status })) };
};

/** A scheduled run is queued up to this long before the time its cron names (a schedule may fire a little early). */
const SCHEDULE_SLACK_MS = 60_000;

/**
 * One tick of the scheduler: each enabled config listed under the ticking classes whose time has
 * come gets a run with a stable id (of its config and that time), written once and queued; then
 * its next time moves on, conditionally, so two ticks at once move it once. A tick that dies
 * between queueing and moving on queues the same run again at the next tick, and the worker,
 * which takes a run before it runs it, runs it once. A config whose times were missed (the
 * scheduler was down) runs once, then at its next time after now.
 */
export const scheduleDueRuns = async (
  deps: { store: DetectionStore; queue: RunQueue },
  classes: readonly ScheduleClass[],
  now: number,
): Promise<DetectionRun[]> => {
  const due: { listing: ConfigListing; run: DetectionRun }[] = [];
  for (const slot of classes) {
    for (const listing of await deps.store.listListed(slot)) {
      if (listing.nextRunAt === null || Date.parse(listing.nextRunAt) > now + SCHEDULE_SLACK_MS) continue;
      const run: DetectionRun = {
        orgId: listing.orgId,
        configId: listing.configId,
        runId: stableId(`run:${listing.orgId}:${listing.configId}:${listing.nextRunAt}`),
        source: listing.source,
        status: 'QUEUED',
        resultCount: 0,
        queuedAt: listing.nextRunAt,
        finishedAt: null,
      };
      await deps.store.putRunOnce(run);
      due.push({ listing, run });
    }
  }
  await deps.queue.send(due.map((entry) => entry.run));
  for (const { listing } of due) {
    const cron = listing.cron === null ? undefined : parseCron(listing.cron);
    const from = Math.max(now, Date.parse(listing.nextRunAt as string));
    const next = cron === undefined ? undefined : nextCronTime(cron, from);
    await deps.store.advanceListing(
      listing,
      listing.nextRunAt,
      next === undefined ? null : new Date(next).toISOString(),
    );
  }
  return due.map((entry) => entry.run);
};

/**
 * The worker's run of one queued run: taken first (until `leaseMs` from now), so a message
 * delivered twice, or a scheduled run queued twice, runs once; undefined when it was not taken.
 */
export const runQueued = async (
  deps: PipelineDeps,
  run: DetectionRun,
  now: number,
  leaseMs: number,
): Promise<number | undefined> => {
  const taken = await deps.store.claimRun(run, new Date(now).toISOString(), new Date(now + leaseMs).toISOString());
  if (!taken) return undefined;
  return executeRun(deps, { ...run, status: 'RUNNING' }, now);
};

const HOUR = 3_600_000;

export const validateConfigs = async (
  deps: ConfigDeps & { runNow: (runs: DetectionRun[]) => Promise<void> },
  caller: Caller,
  body: {
    slug: string;
    source?: string;
    minResults?: number;
    lookbackHours?: number;
    run?: boolean;
    includeDisabled?: boolean;
  },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const configs = await selectConfigs(deps.store, orgId, body);
  for (const config of configs) {
    await checkOutbound(deps.outbound, sourceFor(config.source), config.config, `configs.${config.id}.`);
  }
  if (body.run === true) {
    const at = new Date(now).toISOString();
    const runs = configs.map(
      (config, i): DetectionRun => ({
        orgId,
        configId: config.id,
        runId: newRecordId(now) + i,
        source: config.source,
        status: 'QUEUED',
        resultCount: 0,
        queuedAt: at,
        finishedAt: null,
      }),
    );
    for (const run of runs) await deps.store.putRun(run);
    await deps.runNow(runs);
  }
  const since = new Date(now - (body.lookbackHours ?? DEFAULT_LOOKBACK_HOURS) * HOUR).toISOString();
  const runs = await deps.store.listRuns(orgId, since);
  const results = configYields(configs, runs, body.minResults ?? DEFAULT_MIN_RESULTS);
  return { results, failures: results.filter((result) => !result.ok).map((result) => result.configId) };
};

const NOISY_MIN = 20;
const NOISY_SHARE = 0.8;
const STALE_DAYS = 30;
const SILENT_RUNS = 3;

/**
 * Drift from run history in the window: a config whose last runs (at least three) all found
 * nothing is silent; a source whose detections are mostly below medium confidence is noisy; a
 * config unchanged for 30 days whose latest run found less than half its first is stale.
 */
export const detectionDrift = async (
  deps: DetectionDeps,
  caller: Caller,
  body: { slug: string; source?: string; configId?: number; lookbackHours?: number; includeDisabled?: boolean },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const configs = await selectConfigs(deps.store, orgId, body);
  const since = new Date(now - (body.lookbackHours ?? 168) * HOUR).toISOString();
  const [runs, settings, { items }] = await Promise.all([
    deps.store.listRuns(orgId, since),
    deps.store.settings(orgId),
    deps.store.listDetections(orgId, undefined, 1000),
  ]);
  const signals: { kind: string; configId: number | null; source: string; detail: string; since: string }[] = [];
  for (const config of configs) {
    const own = runs.filter((run) => run.configId === config.id && run.status === 'SUCCEEDED');
    const last = own.slice(-SILENT_RUNS);
    if (last.length >= SILENT_RUNS && last.every((run) => run.resultCount === 0)) {
      signals.push({
        kind: 'silent-config',
        configId: config.id,
        source: config.source,
        detail: `its last ${last.length} runs found nothing; widen its terms or disable it`,
        since: (last[0] as DetectionRun).queuedAt,
      });
    }
    const first = own[0];
    const latest = own[own.length - 1];
    const unchangedSince = Date.parse(config.updatedAt);
    if (
      first &&
      latest &&
      first !== latest &&
      now - unchangedSince > STALE_DAYS * 24 * HOUR &&
      latest.resultCount * 2 < first.resultCount
    ) {
      signals.push({
        kind: 'stale-query',
        configId: config.id,
        source: config.source,
        detail: `unchanged since ${config.updatedAt} while its yield fell from ${first.resultCount} to ${latest.resultCount}`,
        since: config.updatedAt,
      });
    }
  }
  const recent = items.filter((item) => item.createdAt >= since);
  for (const source of new Set(recent.map((item) => item.source))) {
    if (body.source !== undefined && source !== body.source) continue;
    const found = recent.filter((item) => item.source === source);
    const weak = found.filter((item) => item.score < settings.thresholds.medium).length;
    if (found.length >= NOISY_MIN && weak / found.length >= NOISY_SHARE) {
      signals.push({
        kind: 'noisy-source',
        configId: null,
        source,
        detail: `${weak} of ${found.length} detections are below medium confidence; tighten its terms`,
        since: (found[found.length - 1] as Detection).createdAt,
      });
    }
  }
  return { signals };
};

/** The organization's own domains: the hosts of its allowlisted URL assets. */
const MAX_ASSET_PAGES = 5;
const ownDomains = async (assets: CandidateDeps['assets'], orgId: string): Promise<string[]> => {
  const domains: string[] = [];
  let position: string | undefined;
  for (let page = 0; page < MAX_ASSET_PAGES; page++) {
    const listed = await assets.list(orgId, { type: 'URL' }, 100, position);
    for (const asset of listed.assets) {
      const key = asset.status === 'ALLOWED' ? entryKeyOf(asset.content, 'URL') : undefined;
      if (key !== undefined && !key.includes('/')) domains.push(key);
    }
    position = listed.position;
    if (position === undefined) break;
  }
  return domains;
};

type Brand = Awaited<ReturnType<CandidateDeps['directory']['listBrands']>>[number];

/** What a run matches against: the organization's (or the config's brand's) terms and own domains. */
export const profileOf = async (deps: CandidateDeps, orgId: string, brandId: number | null) => {
  const [allBrands, domains] = await Promise.all([deps.directory.listBrands(orgId), ownDomains(deps.assets, orgId)]);
  const brands = allBrands.filter((brand) => !brand.deleted && (brandId === null || brandIdOf(brand) === brandId));
  const tickers = brands.flatMap((brand) => brand.tickers ?? []);
  return { brands, domains, profile: brandProfile(orgId, brands, domains, tickers) };
};

const matchedBrands = (content: string, brands: readonly Brand[], domains: readonly string[]) =>
  brands
    .filter((brand) =>
      evaluateThreat(content, brandProfile('', [brand], domains, brand.tickers ?? [])).signals.some((s) =>
        ['homoglyph', 'edit-distance', 'brand-term', 'tld-swap'].includes(s.name),
      ),
    )
    .map((brand) => ({ id: brandIdOf(brand), name: brand.name, slug: brand.slug }));

/**
 * The pipeline of one run's candidates: each becomes an asset (skipped when ALLOWED), is scored by
 * the threat engine, and becomes one detection per asset, source and organization (a second run
 * records nothing new); with auto-report on, a detection at or above the medium threshold whose
 * content is not already blocked, nor rejected twice before, files its one report. Returns the
 * detections recorded.
 */
export const processCandidates = async (
  deps: CandidateDeps,
  run: { orgId: string; source: SourceKey; configId: number | null; brandId: number | null; minScore?: number },
  candidates: readonly Candidate[],
  now: number,
): Promise<Detection[]> => {
  const [{ brands, domains, profile }, settings] = await Promise.all([
    profileOf(deps, run.orgId, run.brandId),
    deps.store.settings(run.orgId),
  ]);
  const minScore = run.minScore ?? settings.thresholds.low;
  const recorded: Detection[] = [];
  for (const candidate of candidates) {
    const type = detectAssetType(candidate.content);
    const checkKey = type === undefined ? undefined : entryKeyOf(candidate.content, type);
    if (type === undefined || checkKey === undefined) continue;
    const known = await deps.checker.check(candidate.content);
    if (known.status === 'ALLOWED') continue;
    const result = evaluateThreat(candidate.content, profile, { status: known.status, source: known.source });
    const score = result.score / 100;
    if (score < minScore) continue;
    // A hundred ids a millisecond at most, so a long run never exhausts the ids of one moment.
    const idTime = now + Math.floor(recorded.length / IDS_PER_MS);
    const detection: Detection = {
      id: newRecordId(idTime),
      orgId: run.orgId,
      source: run.source,
      configId: run.configId,
      threatContent: candidate.content,
      createdAt: new Date(now).toISOString(),
      score,
      reason: `${candidate.reason}; ${result.signals.map((signal) => `${signal.name} (${signal.weight}): ${signal.detail}`).join('; ')}`,
      reportStatus: 'NOT_REPORTED',
      reportedAt: null,
      asset: { id: assetIdOf(checkKey), content: candidate.content, type, status: known.status },
      brands: matchedBrands(candidate.content, brands, domains),
    };
    if (!(await recordOnce(deps.store, detection, idTime))) continue;
    recorded.push(detection);
    if (
      settings.autoReport &&
      score >= settings.thresholds.medium &&
      known.status !== 'BLOCKED' &&
      !(await rejectedTwice(deps.lists, run.orgId, detection.asset.id))
    ) {
      await fileReport(deps, detection, now);
    }
  }
  return recorded;
};

const IDS_PER_MS = 100;
/** Ids of one moment may meet (a run's detections share its time): a taken id is drawn again. */
const MAX_ID_DRAWS = 8;
const recordOnce = async (store: DetectionStore, detection: Detection, now: number): Promise<boolean> => {
  for (let draw = 0; draw < MAX_ID_DRAWS; draw++) {
    const outcome = await store.record(draw === 0 ? detection : Object.assign(detection, { id: newRecordId(now) }));
    if (outcome !== 'id-taken') return outcome === 'recorded';
  }
  throw new Error(`No free detection id at ${now} after ${MAX_ID_DRAWS} draws`);
};

/** Records of an asset read for its rejections: the newest of the organization's own. */
const REJECTION_RECORDS = 25;
/**
 * Auto-reporting stops at content the organization's reviewers rejected at least twice (two of its
 * proposals of that content REJECTED): a third report would only come back for the same answer.
 */
const REJECTIONS_TO_STOP = 2;
const rejectedTwice = async (lists: CandidateDeps['lists'], orgId: string, assetId: number): Promise<boolean> => {
  const records = await lists.byAssetOf(assetId, orgId, REJECTION_RECORDS);
  const rejected = records.filter((record) => record.kind === 'threat' && record.status === 'REJECTED');
  return rejected.length >= REJECTIONS_TO_STOP;
};

const fileReport = async (deps: CandidateDeps, detection: Detection, now: number) => {
  if (!(await deps.store.claimReport(detection.orgId, detection.id))) return;
  const at = new Date(now).toISOString();
  try {
    await createReport(
      deps.reports,
      detection.orgId,
      {
        title: `Detection ${detection.id} (${detection.source}): ${detection.threatContent}`,
        description: detection.reason ?? '',
        assets: [{ content: detection.threatContent, status: 'BLOCKED' }],
      },
      { now: at },
    );
  } catch (error) {
    if (error instanceof UnprocessableContentError) return;
    await deps.store.releaseReport(detection.orgId, detection.id);
    throw error;
  }
  await deps.store.markReported(detection.orgId, detection.id, at);
};

/**
 * Content pushed to a push source for one organization (`EXTERNAL` from its submissions, and
 * `ASSET_CHECK` from unknown content it submitted or scanned): recorded under its enabled config
 * of that source, none when it has none. Pushed content is a finding whatever its score; content
 * seen by the check must score at least the config's `minScore` (the low threshold by default).
 */
export const feedPushSource = async (
  deps: CandidateDeps,
  orgId: string,
  source: 'ASSET_CHECK' | 'EXTERNAL',
  candidates: readonly Candidate[],
  now: number,
): Promise<Detection[]> => {
  const config = (await deps.store.listConfigs(orgId)).find(
    (found) => found.source === source && found.status === 'ENABLED' && found.deletedAt === null,
  );
  if (config === undefined || candidates.length === 0) return [];
  const minScore =
    source === 'EXTERNAL' ? 0 : typeof config.config.minScore === 'number' ? config.config.minScore : undefined;
  return processCandidates(
    deps,
    { orgId, source, configId: config.id, brandId: config.brandId, minScore },
    candidates,
    now,
  );
};

const DNS_TWIST_DEFAULT_MAX = 5000;

/** The candidates of a pull source's run. */
const candidatesOf = async (deps: PipelineDeps, config: DetectionConfig): Promise<Candidate[]> => {
  if (config.source === 'DNS_TWIST') {
    const settings = config.config as {
      domains?: string[];
      families?: PermutationFamily[];
      tlds?: string[];
      maxPermutations?: number;
    };
    const domains = settings.domains ?? (await ownDomains(deps.assets, config.orgId));
    const all = domains.flatMap((domain) =>
      permutations(domain, {
        families: settings.families,
        tlds: settings.tlds,
        max: settings.maxPermutations ?? DNS_TWIST_DEFAULT_MAX,
      }).map((permutation) => ({ ...permutation, of: domain })),
    );
    const registered = await mapBounded(all, deps.resolverConcurrency, (permutation) =>
      deps.resolver.registered(permutation.domain),
    );
    return all
      .filter((_, i) => registered[i])
      .map((permutation) => ({
        content: permutation.domain,
        reason: `registered ${permutation.family} permutation of ${permutation.of}`,
      }));
  }
  if (config.source === 'CERTSTREAM') {
    const settings = config.config as { logs?: LogRef[]; maxEntriesPerRun?: number };
    const { names, positions } = await deps.certificates.read(
      settings.logs,
      (log) => deps.store.position(config.orgId, config.id, log),
      settings.maxEntriesPerRun ?? 100_000,
    );
    const { profile } = await profileOf(deps, config.orgId, config.brandId);
    const matched = matchNames(names, profile.terms);
    for (const [log, position] of Object.entries(positions))
      await deps.store.setPosition(config.orgId, config.id, log, position);
    return matched.map((name) => ({ content: name, reason: 'named in a new certificate' }));
  }
  return [];
};

/** One queued run: its source's candidates through the pipeline, its count kept for validation and drift. */
export const executeRun = async (deps: PipelineDeps, run: DetectionRun, now: number): Promise<number> => {
  const config = await deps.store.findConfig(run.orgId, run.configId);
  if (config === undefined || config.deletedAt !== null) return 0;
  let resultCount = 0;
  let status: DetectionRun['status'] = 'SUCCEEDED';
  try {
    const candidates = await candidatesOf(deps, config);
    // A registered permutation of a brand's domain is a finding whatever its score; its confidence says how strong.
    const minScore =
      config.source === 'DNS_TWIST'
        ? 0
        : typeof config.config.minScore === 'number'
          ? config.config.minScore
          : undefined;
    resultCount = (
      await processCandidates(
        deps,
        { orgId: run.orgId, source: config.source, configId: config.id, brandId: config.brandId, minScore },
        candidates,
        now,
      )
    ).length;
  } catch (error) {
    status = 'FAILED';
    throw error;
  } finally {
    const at = new Date(now).toISOString();
    await deps.store.putRun({ ...run, status, resultCount, finishedAt: at });
    const fresh = await deps.store.findConfig(run.orgId, run.configId);
    if (fresh && fresh.deletedAt === null) {
      await deps.store.updateConfig({ ...fresh, lastRunAt: at, lastResultCount: resultCount }, fresh.updatedAt);
    }
  }
  return resultCount;
};

export type ListFilter = {
  property: 'source' | 'assetStatus' | 'confidence' | 'assetType';
  operator: 'in' | 'notIn';
  value: string[];
};

const MAX_LIST_READS = 20;
const READ_PAGE = 100;

/**
 * `POST /detection/list`: newest first; filters ANDed; `query` a case-insensitive substring of the
 * threat content; `startDate`/`endDate` UTC days, inclusive, of `createdAt`.
 */
export const listDetections = async (
  deps: DetectionDeps,
  caller: Caller,
  body: {
    slug: string;
    cursor?: number;
    limit?: number;
    filters?: ListFilter[];
    query?: string;
    startDate?: string;
    endDate?: string;
  },
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  orderedBounds(body.startDate, body.endDate);
  const settings = await deps.store.settings(orgId);
  const limit = body.limit ?? 50;
  const query = (body.query ?? '').toLowerCase();
  const view = (detection: Detection) => {
    const { orgId: _org, ...rest } = detection;
    return { ...rest, confidence: confidenceOf(detection.score, settings.thresholds) };
  };
  const fieldOf = (detection: ReturnType<typeof view>, property: ListFilter['property']): string =>
    property === 'source'
      ? detection.source
      : property === 'confidence'
        ? detection.confidence
        : property === 'assetStatus'
          ? detection.asset.status
          : detection.asset.type;
  const keep = (detection: ReturnType<typeof view>) =>
    (body.filters ?? []).every(
      (filter) => filter.value.includes(fieldOf(detection, filter.property)) === (filter.operator === 'in'),
    ) &&
    (query === '' || detection.threatContent.toLowerCase().includes(query)) &&
    (body.startDate === undefined || detection.createdAt.slice(0, 10) >= body.startDate) &&
    (body.endDate === undefined || detection.createdAt.slice(0, 10) <= body.endDate);
  const out: ReturnType<typeof view>[] = [];
  let before = body.cursor;
  let more = true;
  for (let reads = 0; reads < MAX_LIST_READS && more && out.length < limit; reads++) {
    const page = await deps.store.listDetections(orgId, before, READ_PAGE);
    more = page.more;
    for (const item of page.items) {
      before = item.id;
      const shown = view(item);
      if (keep(shown)) out.push(shown);
      if (out.length >= limit) {
        more = more || page.items[page.items.length - 1] !== item;
        break;
      }
    }
  }
  return { detections: out, nextCursor: more && before !== undefined ? before : null };
};
