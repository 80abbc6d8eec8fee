import type { Caller } from '../account/access.ts';
import { newRecordId, stableId } from '../core/ids.ts';
import { organizationFor, selectConfigs } from './configs.ts';
import type { ConfigListing, DetectionConfig, DetectionDeps, DetectionRun, DetectionStore, RunQueue } from './model.ts';
import { nextCronTime, parseCron, type ScheduleClass } from './schedules.ts';

/** Writes a queued run of each config, queued at `now`, with ids one apart from the id of `now`. */
export const putQueuedRuns = async (
  store: Pick<DetectionStore, 'putRun'>,
  orgId: string,
  configs: readonly DetectionConfig[],
  now: number,
): Promise<DetectionRun[]> => {
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
  for (const run of runs) await store.putRun(run);
  return runs;
};

export const queueRuns = async (
  deps: DetectionDeps & { queue: RunQueue },
  caller: Caller,
  body: { slug: string; configId?: number; source?: string; includeDisabled?: boolean },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const configs = await selectConfigs(deps.store, orgId, body);
  const runs = await putQueuedRuns(deps.store, orgId, configs, now);
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

/** A queued run read back from its message body; undefined when the body is not one. */
export const parseRun = (body: string): DetectionRun | undefined => {
  let run: Partial<DetectionRun> | null;
  try {
    run = JSON.parse(body) as Partial<DetectionRun> | null;
  } catch {
    return undefined;
  }
  const isRun =
    typeof run === 'object' &&
    run !== null &&
    typeof run.orgId === 'string' &&
    typeof run.queuedAt === 'string' &&
    Number.isSafeInteger(run.runId) &&
    Number.isSafeInteger(run.configId);
  return isRun ? (run as DetectionRun) : undefined;
};
