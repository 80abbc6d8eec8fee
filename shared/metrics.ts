import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from './config.ts';
import type { CheckResult, SyncOutcome } from './domain/check/index.ts';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from './metric-names.ts';

/**
 * CloudWatch metrics in the embedded metric format: JSON lines on stdout that CloudWatch Logs
 * turns into metrics, so emitting one is never a network call (locally the lines are printed).
 * The figures of requests (endpoint, verdict, replica age) are held and published together, see
 * `recordResponse`; the workers' figures and the rare ones are published at once.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: config.serviceName });

/**
 * A container publishes the figures it holds at most once per interval: one EMF record per request
 * was most of the bytes a check wrote to its log. CloudWatch aggregates metrics per minute, so a
 * minute is the longest a figure can wait without blurring what the alarms see.
 */
export const FLUSH_INTERVAL_MS = 60_000;
/** EMF takes at most 100 values per metric in one record; the held latencies are published then. */
const MAX_VALUES = 100;

type EndpointFigures = {
  requests: number;
  clientErrors: number;
  serverErrors: number;
  rateLimited: number;
  latencies: number[];
};

const held = {
  endpoints: new Map<string, EndpointFigures>(),
  verdicts: new Map<string, { status: string; source: string; count: number }>(),
  sourceFailures: new Map<string, { timeouts: number; errors: number }>(),
  /** The largest replica age seen, by the route of the function (none locally, where one replica serves every route). */
  replicaAges: new Map<string | undefined, number>(),
  /** When the newest held figure was recorded; undefined when nothing is held. */
  at: undefined as number | undefined,
};
let publishedAt = Number.NEGATIVE_INFINITY;

/** One EMF record: the figures `add` stores under `dimensionSets` (each set beside `service`), stamped `at`. */
const publishRecord = (at: number, dimensionSets: Record<string, string>[], add: () => void) => {
  metrics.setTimestamp(at);
  for (const set of dimensionSets) metrics.addDimensions(set);
  add();
  // The 100th value of a metric has already published the record (Powertools does it itself).
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
};

const publishHeld = (at: number) => {
  const area = config.routeArea;
  for (const [route, figures] of held.endpoints) {
    const sets: Record<string, string>[] = [{ [DIMENSION.route]: route }];
    if (area) sets.push({ [DIMENSION.area]: area });
    publishRecord(at, sets, () => {
      metrics.addMetric(METRIC.requests, MetricUnit.Count, figures.requests);
      metrics.addMetric(METRIC.clientErrors, MetricUnit.Count, figures.clientErrors);
      metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, figures.serverErrors);
      metrics.addMetric(METRIC.rateLimited, MetricUnit.Count, figures.rateLimited);
      // Every latency as a value of its own, so the p99 alarm still reads a distribution.
      for (const latency of figures.latencies) metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, latency);
    });
  }
  for (const { status, source, count } of held.verdicts.values()) {
    publishRecord(at, [{ [DIMENSION.status]: status }, { [DIMENSION.source]: source }], () =>
      metrics.addMetric(METRIC.verdicts, MetricUnit.Count, count),
    );
  }
  for (const [source, { timeouts, errors }] of held.sourceFailures) {
    publishRecord(at, [{ [DIMENSION.source]: source }], () => {
      if (timeouts > 0) metrics.addMetric(METRIC.sourceTimeouts, MetricUnit.Count, timeouts);
      if (errors > 0) metrics.addMetric(METRIC.sourceErrors, MetricUnit.Count, errors);
    });
  }
  for (const [route, seconds] of held.replicaAges) {
    publishRecord(at, route === undefined ? [] : [{ [DIMENSION.route]: route }], () =>
      metrics.addMetric(METRIC.replicaAge, MetricUnit.Seconds, seconds),
    );
  }
  held.endpoints.clear();
  held.verdicts.clear();
  held.sourceFailures.clear();
  held.replicaAges.clear();
  held.at = undefined;
};

/**
 * Makes room for a figure recorded now. Figures held through a quiet spell longer than the
 * interval are published first, under the time they were recorded rather than with the request
 * that ends the spell.
 */
const hold = (now: number) => {
  if (held.at !== undefined && now - held.at >= FLUSH_INTERVAL_MS) publishHeld(held.at);
  held.at = now;
};

/**
 * One response of an endpoint: counted, classed (4xx, of them 429, and 5xx) and timed, under the
 * dimension sets [service, route] and, in AWS, [service, area]. Called at the end of every
 * request, it publishes what the container holds when the interval has passed since it last did
 * (a request after a quiet spell is published at once) or when a route holds 100 latencies.
 * Figures still held when Lambda retires a container (at most one interval of them) are lost.
 */
export const recordResponse = (route: string, status: number, latencyMs: number): void => {
  const now = Date.now();
  hold(now);
  let figures = held.endpoints.get(route);
  if (figures === undefined) {
    figures = { requests: 0, clientErrors: 0, serverErrors: 0, rateLimited: 0, latencies: [] };
    held.endpoints.set(route, figures);
  }
  figures.requests++;
  if (status >= 400 && status < 500) figures.clientErrors++;
  if (status === 429) figures.rateLimited++;
  if (status >= 500) figures.serverErrors++;
  figures.latencies.push(latencyMs);
  if (now - publishedAt >= FLUSH_INTERVAL_MS || figures.latencies.length >= MAX_VALUES) {
    publishHeld(now);
    publishedAt = now;
  }
};

/** A check verdict, by status and by deciding source, and every consulted source that timed out or failed. */
export const recordVerdict = (result: CheckResult): void => {
  hold(Date.now());
  const key = `${result.status} ${result.source}`;
  const verdict = held.verdicts.get(key);
  if (verdict) verdict.count++;
  else held.verdicts.set(key, { status: result.status, source: result.source, count: 1 });
  for (const report of result.sources) {
    if (report.reason !== 'timeout' && report.reason !== 'source-error') continue;
    let failures = held.sourceFailures.get(report.source);
    if (failures === undefined) {
      failures = { timeouts: 0, errors: 0 };
      held.sourceFailures.set(report.source, failures);
    }
    if (report.reason === 'timeout') failures.timeouts++;
    else failures.errors++;
  }
};

/** How old the verdicts a replica answered from were (ms since it last caught up with the log); the largest is published. */
export const recordReplicaAge = (ageMs: number): void => {
  hold(Date.now());
  const route = config.routeName;
  const seconds = Math.round(ageMs) / 1000;
  held.replicaAges.set(route, Math.max(held.replicaAges.get(route) ?? 0, seconds));
};

/**
 * A transaction cancelled because another one touched its items, published at once under
 * [service] and, in a route's function, [service, route]: a conflict already cost a retried
 * transaction, and the workers that transact publish nothing at the end of a request.
 */
export const recordTransactionConflict = (): void => {
  const single = metrics.singleMetric();
  const route = config.routeName;
  if (route !== undefined) single.addDimensions({ [DIMENSION.route]: route }).addDimensions({});
  single.addMetric(METRIC.transactionConflicts, MetricUnit.Count, 1);
};

/** One verdict snapshot stored by the snapshot job, under [service] only. */
export const publishSnapshotStored = (): void => {
  metrics.singleMetric().addMetric(METRIC.snapshotsStored, MetricUnit.Count, 1);
};

/** One ingested batch: how many changes were applied, ignored (older), failed (retried) and rejected (dead-lettered). */
export const publishIngestion = (counts: { applied: number; ignored: number; failed: number; rejected: number }) => {
  metrics.addMetric(METRIC.changesApplied, MetricUnit.Count, counts.applied);
  metrics.addMetric(METRIC.changesIgnored, MetricUnit.Count, counts.ignored);
  metrics.addMetric(METRIC.changesFailed, MetricUnit.Count, counts.failed);
  metrics.addMetric(METRIC.changesRejected, MetricUnit.Count, counts.rejected);
  metrics.publishStoredMetrics();
};

/** Every list synced: its entries and the age of its content; a failed list reports nothing, which the stale alarm notices. */
export const publishListSync = (outcomes: readonly SyncOutcome[], now: number): void => {
  for (const outcome of outcomes) {
    if (outcome.outcome === 'failed') continue;
    const list = metrics.singleMetric();
    list.addDimension(DIMENSION.source, outcome.source);
    list.addMetric(METRIC.listEntries, MetricUnit.Count, outcome.entries);
    const age = metrics.singleMetric();
    age.addDimension(DIMENSION.source, outcome.source);
    age.addMetric(METRIC.listAge, MetricUnit.Seconds, Math.max(0, (now - Date.parse(outcome.fetchedAt)) / 1000));
  }
};
