/* What detection configs found over a window, for the config check and the silent-configs healthcheck. */

/** What a config's check needs of it; a detection config is one. */
type YieldConfig = {
  id: number;
  source: string;
  status: 'ENABLED' | 'DISABLED';
  createdAt: string;
  deletedAt: string | null;
};
/** What a config's check needs of a run; a detection run is one. */
type YieldRun = { configId: number; resultCount: number };
export type YieldStore = {
  listConfigs(orgId: string): Promise<YieldConfig[]>;
  /** Runs queued at or after `since`. */
  listRuns(orgId: string, since: string): Promise<YieldRun[]>;
};

export const DEFAULT_MIN_RESULTS = 1;
export const DEFAULT_LOOKBACK_HOURS = 168;
const HOUR_MS = 3_600_000;

export type ConfigYield = { configId: number; source: string; resultCount: number; ok: boolean };

/** Each config's results over the runs given, and whether they reach `minResults`. */
export const configYields = (
  configs: readonly YieldConfig[],
  runs: readonly YieldRun[],
  minResults: number,
): ConfigYield[] =>
  configs.map((config) => {
    const resultCount = runs.filter((run) => run.configId === config.id).reduce((sum, run) => sum + run.resultCount, 0);
    return { configId: config.id, source: config.source, resultCount, ok: resultCount >= minResults };
  });

export type SilentConfigs = {
  enabled: number;
  /** With when each was created: the healthcheck lists them oldest first. */
  silent: (ConfigYield & { createdAt: string })[];
  minResults: number;
  lookbackHours: number;
};

/**
 * The organization's enabled configs whose runs queued within the last `lookbackHours` found fewer
 * than `minResults` results: one read of its configs and one of its runs in the window.
 */
export const silentConfigs = async (
  store: YieldStore,
  orgId: string,
  now: number,
  {
    minResults = DEFAULT_MIN_RESULTS,
    lookbackHours = DEFAULT_LOOKBACK_HOURS,
  }: { minResults?: number; lookbackHours?: number },
): Promise<SilentConfigs> => {
  const since = new Date(now - lookbackHours * HOUR_MS).toISOString();
  const [configs, runs] = await Promise.all([store.listConfigs(orgId), store.listRuns(orgId, since)]);
  const enabled = configs.filter((config) => config.deletedAt === null && config.status === 'ENABLED');
  const silent = configYields(enabled, runs, minResults).flatMap((found, index) =>
    found.ok ? [] : [{ ...found, createdAt: (enabled[index] as YieldConfig).createdAt }],
  );
  return { enabled: enabled.length, silent, minResults, lookbackHours };
};
