/** Time as a process sees it: the current epoch ms, and a pause. Injected, so tests move it. */
export type Clock = { now: () => number; sleep: (ms: number) => Promise<void> };

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
