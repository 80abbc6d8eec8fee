import { type DetectionStore, type RunQueue, scheduleDueRuns } from '../../shared/domain/detections/index.ts';
import { SCHEDULE_CLASSES, type ScheduleClass } from '../../shared/domain/detections/schedules.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

const classesOf = (event: unknown): ScheduleClass[] => {
  const named = (event as { scheduleClass?: unknown } | null)?.scheduleClass;
  if (named === undefined) return [...SCHEDULE_CLASSES];
  if (!SCHEDULE_CLASSES.includes(named as ScheduleClass)) throw new Error(`Unknown schedule class ${String(named)}`);
  return [named as ScheduleClass];
};

/**
 * Invoked by one schedule per class (`{"scheduleClass": "hourly"}`): queues a run of each enabled
 * config of that class whose time has come. With no class (by hand), every class.
 */
export const createHandler =
  (deps: () => { store: DetectionStore; queue: RunQueue }, now: () => number) => async (event: unknown) => {
    const classes = classesOf(event);
    const runs = await scheduleDueRuns(deps(), classes, now());
    logger.info('Detection runs scheduled', { classes, runs: runs.length });
    return { runs: runs.length };
  };

export const handler = workerHandler(
  createHandler(() => ({ store: runtime.detections(), queue: runtime.detectionQueue() }), runtime.now),
);
