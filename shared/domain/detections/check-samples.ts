import type { CheckStatus } from '../check/index.ts';

/** The message of the log line a batch of samples leaves in AWS (a subscription filter matches it). */
export const SAMPLES_MESSAGE = 'asset check samples';

export type CheckSampler = {
  /** Called by the check after it has its answer: synchronous, no I/O, no promise. */
  offer(content: string, status: CheckStatus): void;
  /** Hands on what is buffered now. */
  flush(): void;
};

export type SamplerOptions = {
  /** Share of unknown answers sampled (1: all, 0: none). */
  rate: number;
  /** Samples handed on together; a full batch goes at the next turn of the event loop. */
  batch: number;
  /** A batch that does not fill goes this long after its first sample. */
  maxWaitMs: number;
  /** Distinct contents remembered per container, so a content checked again is not sampled again. */
  seenLimit: number;
  /** Where a batch goes: a log line in AWS, the in-process feed locally. Never awaited by the check. */
  emit: (contents: string[]) => void;
  random?: () => number;
};

/** Longer contents are not sampled: a lookalike is a host, not a long URL's query. */
const MAX_SAMPLE_LENGTH = 512;

/**
 * The check's in-memory sample of unknown content for the ASSET_CHECK source, kept per container:
 * `offer` only adds to a buffer (a set lookup and a push); the batch leaves after the answer, from
 * a timer or `setImmediate`, never on the request's path and never as a table write. This module
 * imports nothing at run time, so the check's bundle carries no detection code.
 */
export const checkSampler = (options: SamplerOptions): CheckSampler => {
  const random = options.random ?? Math.random;
  const seen = new Set<string>();
  let buffer: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let immediate = false;
  const flush = () => {
    immediate = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    options.emit(batch);
  };
  return {
    offer(content, status) {
      if (status !== 'UNKNOWN' || options.rate <= 0 || content.length > MAX_SAMPLE_LENGTH) return;
      if (options.rate < 1 && random() >= options.rate) return;
      if (seen.has(content)) return;
      if (seen.size >= options.seenLimit) seen.clear();
      seen.add(content);
      buffer.push(content);
      if (buffer.length >= options.batch) {
        if (!immediate) {
          immediate = true;
          setImmediate(flush);
        }
      } else if (timer === undefined) {
        timer = setTimeout(flush, options.maxWaitMs);
        timer.unref?.();
      }
    },
    flush,
  };
};
