import { detectAssetType } from '../allowlist/asset-detection.ts';
import { ownDomains } from '../allowlist/assets.ts';
import { entryKeyOf } from '../check/index.ts';
import { assetIdOf, newRecordId } from '../core/ids.ts';
import { evaluateThreat } from '../threat-engine/engine.ts';
import { type LogRef, matchNames } from './certstream.ts';
import { mapBounded, permutations } from './dnstwist.ts';
import type {
  Candidate,
  CandidateDeps,
  Detection,
  DetectionConfig,
  DetectionRun,
  DetectionStore,
  PipelineDeps,
} from './model.ts';
import { fileReport, rejectedTwice } from './report-filing.ts';
import { matchedBrands, profileOf } from './scoring.ts';
import type { PermutationFamily, SourceKey } from './sources.ts';

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
    const type = detectAssetType(deps.suffixes, candidate.content);
    const checkKey = type === undefined ? undefined : entryKeyOf(deps.suffixes, candidate.content, type);
    if (type === undefined || checkKey === undefined) continue;
    const known = await deps.checker.check(candidate.content);
    if (known.status === 'ALLOWED') continue;
    const result = evaluateThreat(deps.suffixes, candidate.content, profile, {
      status: known.status,
      source: known.source,
    });
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
      brands: matchedBrands(deps.suffixes, candidate.content, brands, domains),
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
    const domains = settings.domains ?? (await ownDomains(deps.suffixes, deps.assets, config.orgId));
    const all = domains.flatMap((domain) =>
      permutations(deps.suffixes, domain, {
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
