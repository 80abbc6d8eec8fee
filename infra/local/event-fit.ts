import { ROUTES, type Worker } from '../routes.ts';

/** What an event is for, as far as its shape says: an HTTP route (by route key), the queue, or a schedule. */
const kindOf = (event: unknown): { route: string } | 'queue' | 'schedule' | 'logs' | undefined => {
  if (typeof event !== 'object' || event === null) return undefined;
  const fields = event as Record<string, unknown>;
  if (typeof fields.routeKey === 'string') return { route: fields.routeKey };
  if (Array.isArray(fields.Records)) return 'queue';
  if (fields['detail-type'] === 'Scheduled Event') return 'schedule';
  if (typeof fields.awslogs === 'object' && fields.awslogs !== null) return 'logs';
  return undefined;
};

const WORKER_EVENTS: Record<Worker, 'queue' | 'schedule' | 'logs'> = {
  'ingest-activity': 'queue',
  'sync-lists': 'schedule',
  'snapshot-verdicts': 'schedule',
  'publish-verdicts': 'schedule',
  'resume-interrupted-writes': 'schedule',
  'generate-webhook-events': 'schedule',
  'deliver-webhooks': 'queue',
  'run-scans': 'queue',
  'run-detections': 'queue',
  'schedule-detections': 'schedule',
  'feed-check-samples': 'logs',
};

/**
 * Why `event` is not one function `name` receives, in one line; undefined when it is. An HTTP
 * event carries its route key, and a route's handler given another route's event would answer
 * for the wrong request without a word.
 */
export const eventMismatch = (name: string, event: unknown, worker?: Worker): string | undefined => {
  const kind = kindOf(event);
  const describe = (k: typeof kind) =>
    k === undefined
      ? 'an event of no known kind'
      : typeof k === 'object'
        ? `an event of ${k.route} (${ROUTES.find((r) => `${r.method} ${r.path}` === k.route)?.name ?? 'no route'})`
        : k === 'queue'
          ? 'a queue event'
          : k === 'logs'
            ? 'a log subscription event'
            : 'a scheduled event';
  if (worker !== undefined) {
    const expected = WORKER_EVENTS[worker];
    return kind === expected ? undefined : `${name} takes ${describe(expected)}; this is ${describe(kind)}`;
  }
  const route = ROUTES.find((candidate) => candidate.name === name);
  if (route === undefined) return `${name} is not a function`;
  const key = `${route.method} ${route.path}`;
  return typeof kind === 'object' && kind.route === key
    ? undefined
    : `${name} serves ${key}; this is ${describe(kind)}`;
};
