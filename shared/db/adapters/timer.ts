import type { Timer } from '../../domain/check/index.ts';

/** The check's timer port on the platform's timers. */
export const systemTimer: Timer = (ms, fire) => {
  const handle = setTimeout(fire, ms);
  return () => clearTimeout(handle);
};
