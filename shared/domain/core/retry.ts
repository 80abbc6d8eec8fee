import { type Clock, systemClock } from './clock.ts';

/**
 * How the wait before a retry grows: `firstMs · 2^(retry-1)`, capped at `capMs`, then jittered.
 * `full` draws the wait anywhere below that (callers that collide spread apart); `added` adds up
 * to half of it, so each wait stays longer than the one before whatever the jitter drew.
 */
export type Backoff = { firstMs: number; capMs?: number; jitter: 'none' | 'full' | 'added' };

/** The wait before retry `retry` (1-based: the one after the first attempt failed). */
export const backoffDelay = (backoff: Backoff, retry: number, random: () => number = Math.random): number => {
  const wait = Math.min(backoff.capMs ?? Number.POSITIVE_INFINITY, backoff.firstMs * 2 ** (retry - 1));
  if (backoff.jitter === 'full') return random() * wait;
  if (backoff.jitter === 'added') return wait + wait * 0.5 * random();
  return wait;
};

/** Whether another attempt may start: attempts remain and its wait ends before the deadline (epoch ms). */
export const mayRetry = (
  { maxAttempts, deadline }: { maxAttempts: number; deadline?: number },
  attempt: number,
  pauseMs: number,
  now: number,
): boolean => attempt < maxAttempts && (deadline === undefined || now + pauseMs < deadline);

export type RetryOptions = {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  backoff: Backoff;
  /** No retry whose wait would end at or past this time (epoch ms) starts. */
  deadline?: number;
  /** Which failures are worth another attempt; any other is thrown at once. */
  shouldRetry: (error: unknown) => boolean;
  /** What to throw when a retryable failure has no attempt left (default: the failure itself). */
  giveUp?: (error: unknown, attempts: number) => unknown;
  clock?: Clock;
  random?: () => number;
};

/** Runs `attempt` (told its 1-based number) until it succeeds, fails for good, or retries run out. */
export const retry = async <T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> => {
  const { shouldRetry, giveUp, clock = systemClock, random = Math.random } = options;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!shouldRetry(error)) throw error;
      const pause = backoffDelay(options.backoff, n, random);
      if (!mayRetry(options, n, pause, clock.now())) throw giveUp ? giveUp(error, n) : error;
      await clock.sleep(pause);
    }
  }
};
