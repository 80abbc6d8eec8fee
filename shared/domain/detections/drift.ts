import type { Caller } from '../account/access.ts';
import { checkOutbound, organizationFor, selectConfigs, sourceFor } from './configs.ts';
import type { ConfigDeps, Detection, DetectionDeps, DetectionRun } from './model.ts';
import { putQueuedRuns } from './runs.ts';
import { configYields, DEFAULT_LOOKBACK_HOURS, DEFAULT_MIN_RESULTS } from './yields.ts';

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
    await deps.runNow(await putQueuedRuns(deps.store, orgId, configs, now));
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
