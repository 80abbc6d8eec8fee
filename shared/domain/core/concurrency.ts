import type { Timer } from '../check/index.ts';

/**
 * Runs `work` on every item with at most `limit` running at once, and returns the results in
 * the items' order. After the first failure no new work starts, and the run rejects with it: at
 * once, or with `toEnd` once the work already started has finished (so nothing goes on writing
 * after the caller has its answer, where a frozen container could resume it much later).
 */
export const mapConcurrently = async <T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  { toEnd = false }: { toEnd?: boolean } = {},
): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
        if (!toEnd) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
};

export type GateLimits = { running: number; waitingPerCaller: number; maxWaitMs: number };

/**
 * At most `running` works at once; a later one waits for a turn, at most `maxWaitMs` and behind
 * fewer than `waitingPerCaller` others of its caller, else it is refused with `refusal()`. Freed
 * turns go to the waiting callers in rotation (each caller's works in order), so a caller with
 * many works waiting delays another's by one turn at most. Written here: no kept library rotates
 * turns among callers.
 */
export const fairGate = ({ running, waitingPerCaller, maxWaitMs }: GateLimits, timer: Timer, refusal: () => Error) => {
  let active = 0;
  /** The waiting works' starts by caller; a Map keeps insertion order, which is the rotation. */
  const queues = new Map<string, (() => void)[]>();
  const release = () => {
    const next = queues.entries().next();
    if (next.done) {
      active--;
      return;
    }
    const [caller, queue] = next.value;
    const start = queue.shift() as () => void;
    queues.delete(caller);
    if (queue.length > 0) queues.set(caller, queue);
    // The turn is handed over: `active` stays.
    start();
  };
  const wait = (caller: string) =>
    new Promise<void>((resolve, reject) => {
      const queue = queues.get(caller) ?? [];
      if (queue.length >= waitingPerCaller) {
        reject(refusal());
        return;
      }
      const start = () => {
        cancel();
        resolve();
      };
      const cancel = timer(maxWaitMs, () => {
        queue.splice(queue.indexOf(start), 1);
        if (queue.length === 0) queues.delete(caller);
        reject(refusal());
      });
      queue.push(start);
      queues.set(caller, queue);
    });
  return {
    async run<R>(caller: string, work: () => Promise<R>): Promise<R> {
      if (active < running) active++;
      else await wait(caller);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
};
