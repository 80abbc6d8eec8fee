import * as v from 'valibot';
import type { LogRef } from './certstream.ts';

const https = v.pipe(v.string(), v.maxLength(512), v.regex(/^https:\/\/[^\s]+$/));
const state = v.optional(v.record(v.string(), v.unknown()));
const interval = v.optional(v.object({ start_inclusive: v.string(), end_exclusive: v.string() }));
const operator = v.object({
  name: v.string(),
  logs: v.optional(
    v.array(v.object({ description: v.optional(v.string()), url: https, state, temporal_interval: interval })),
  ),
  tiled_logs: v.optional(
    v.array(
      v.object({
        description: v.optional(v.string()),
        submission_url: v.optional(https),
        monitoring_url: https,
        state,
        temporal_interval: interval,
      }),
    ),
  ),
});

/** A log list in the v3 log-list JSON format (Chrome's and Apple's): the fields a reader uses (the rest are not read). */
export const LogListSchema = v.object({ operators: v.array(operator) });
export type LogList = v.InferOutput<typeof LogListSchema>;

/** Checks a log list; a list that is not one names the first failing field. */
export const parseLogList = (json: unknown): LogList => {
  const parsed = v.safeParse(LogListSchema, json, { abortEarly: true });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new Error(`Not a v3 log list: ${v.getDotPath(issue) ?? 'the list'} ${issue.message}`);
  }
  return parsed.output;
};

/** States of logs that take new certificates. */
const ACCEPTING = ['usable', 'qualified'];

/**
 * The logs a CERTSTREAM config without logs reads: every log of the list that takes new
 * certificates (usable or qualified) and, when sharded, whose interval holds `now`; RFC 6962
 * logs by URL, tiled logs by monitoring prefix.
 */
export const logsOfList = (list: LogList, now: number): LogRef[] => {
  const current = (log: { state?: Record<string, unknown>; temporal_interval?: { end_exclusive: string } }) =>
    ACCEPTING.some((name) => log.state?.[name] !== undefined) &&
    (log.temporal_interval === undefined || Date.parse(log.temporal_interval.end_exclusive) > now);
  return list.operators.flatMap((op) => [
    ...(op.logs ?? []).filter(current).map((log) => log.url),
    ...(op.tiled_logs ?? [])
      .filter(current)
      .map((log) => ({ monitoringUrl: log.monitoring_url, kind: 'static' as const })),
  ]);
};
