import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from './config.ts';
import type { SyncOutcome } from './domain/check/sync.ts';
import type { CheckResult } from './domain/check/types.ts';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from './metric-names.ts';

/**
 * CloudWatch metrics in the embedded metric format: JSON lines on stdout that CloudWatch Logs
 * turns into metrics, so emitting one is never a network call (locally the lines are printed).
 * Figures recorded during an invocation are published when it ends (the `logMetrics`
 * middleware, or the worker itself); figures with their own dimensions are published at once.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: config.serviceName });

const count = (name: string, dimensions: Record<string, string>, value = 1) => {
  const single = metrics.singleMetric();
  for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
  single.addMetric(name, MetricUnit.Count, value);
};

/** One response of an endpoint: counted, classed (4xx, 5xx) and timed. */
export const recordResponse = (route: string, status: number, latencyMs: number): void => {
  metrics.addDimension(DIMENSION.route, route);
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.clientErrors, MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
  metrics.addMetric(METRIC.serverErrors, MetricUnit.Count, status >= 500 ? 1 : 0);
  metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, latencyMs);
};

/** A check verdict, by status and by deciding source, and every consulted source that timed out or failed. */
export const recordVerdict = (result: CheckResult): void => {
  const verdict = metrics.singleMetric();
  verdict.addDimensions({ [DIMENSION.status]: result.status });
  verdict.addDimensions({ [DIMENSION.source]: result.source });
  verdict.addMetric(METRIC.verdicts, MetricUnit.Count, 1);
  for (const report of result.sources) {
    if (report.reason === 'timeout') count(METRIC.sourceTimeouts, { [DIMENSION.source]: report.source });
    if (report.reason === 'source-error') count(METRIC.sourceErrors, { [DIMENSION.source]: report.source });
  }
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
