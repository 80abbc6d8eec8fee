import type { MiddlewareObj, Request } from '@middy/core';
import { config } from '../config.ts';
import {
  type Budget,
  type RateClass,
  type RateDecision,
  type RateLimiter,
  rateLimiter,
} from '../domain/account/rate-limits.ts';
import { TooManyRequestsError } from '../errors.ts';
import type { ApiResult } from './api-event.ts';
import { resolvedKeyOf } from './api-key-auth.ts';

export type RateLimitOptions = {
  rateClass: RateClass;
  limiter: RateLimiter;
  /** The stage's budget per class; read once, at the first request. */
  defaults: () => Record<RateClass, Budget>;
};

let containerLimiter: RateLimiter | undefined;
let stageDefaults: Record<RateClass, Budget> | undefined;
/** The container's buckets and the stage defaults of `RATE_LIMITS`: what `apiHandler` uses unless a test passes its own. */
export const containerRateLimits = (): Omit<RateLimitOptions, 'rateClass'> => {
  containerLimiter ??= rateLimiter();
  return { limiter: containerLimiter, defaults: () => (stageDefaults ??= config.rateLimits) };
};

const headersOf = (decision: RateDecision): Record<string, string> => ({
  'RateLimit-Limit': String(decision.limit),
  'RateLimit-Remaining': String(decision.remaining),
  'RateLimit-Reset': String(decision.resetSeconds),
  ...(decision.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(decision.retryAfterSeconds) }),
});

/**
 * The key's token bucket for the route's rate-limit class, right after the key is
 * resolved: over budget is a 429 before the body is read. Every answer the bucket was consulted
 * for carries the `RateLimit-*` headers, errors included; a refusal adds `Retry-After`.
 */
export const rateLimit = <E>({ rateClass, limiter, defaults }: RateLimitOptions): MiddlewareObj<E, ApiResult> => {
  const mark = async (request: Request<E, ApiResult>) => {
    const decision = (request.internal as { rateDecision?: RateDecision }).rateDecision;
    if (!decision || typeof request.response !== 'object' || request.response === null) return;
    request.response.headers = { ...request.response.headers, ...headersOf(decision) };
  };
  return {
    before: async (request) => {
      const key = resolvedKeyOf(request);
      if (!key) return;
      const decision = limiter.take(key.hash, rateClass, key.rateLimits?.[rateClass] ?? defaults()[rateClass]);
      Object.assign(request.internal, { rateDecision: decision });
      if (!decision.allowed) throw new TooManyRequestsError(`Rate limit exceeded for ${rateClass} requests`);
    },
    after: mark,
    onError: mark,
  };
};
