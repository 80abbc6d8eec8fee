import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_LIMITS,
  keyRateLimits,
  parseRateLimits,
  rateLimiter,
} from '../../../shared/domain/account/rate-limits.ts';

const clock = (start = 1_000_000) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

const takeMany = (take: () => { allowed: boolean }, count: number) =>
  Array.from({ length: count }, take).filter((decision) => decision.allowed).length;

describe('the token bucket', () => {
  it('lets a new key spend its whole burst at once, then refuses', () => {
    const limiter = rateLimiter(clock());
    const budget = { perSecond: 5, burst: 10 };

    const allowed = takeMany(() => limiter.take('key-a', 'check', budget), 30);

    expect(allowed).toBe(10);
  });

  it('refills at perSecond tokens a second, whole and fractional, never above burst', () => {
    const time = clock();
    const limiter = rateLimiter(time);
    const budget = { perSecond: 5, burst: 10 };
    takeMany(() => limiter.take('key-a', 'check', budget), 10);

    time.advance(300);
    const afterThreeTenths = takeMany(() => limiter.take('key-a', 'check', budget), 5);
    time.advance(60_000);
    const afterAMinute = takeMany(() => limiter.take('key-a', 'check', budget), 30);

    expect(afterThreeTenths).toBe(1);
    expect(afterAMinute).toBe(10);
  });

  it('reports the bucket size, the whole tokens left and the seconds until it is full', () => {
    const limiter = rateLimiter(clock());
    const budget = { perSecond: 2, burst: 10 };

    const first = limiter.take('key-a', 'read', budget);
    takeMany(() => limiter.take('key-a', 'read', budget), 4);
    const sixth = limiter.take('key-a', 'read', budget);

    expect(first).toEqual({ allowed: true, rateClass: 'read', limit: 10, remaining: 9, resetSeconds: 1 });
    expect(sixth).toEqual({ allowed: true, rateClass: 'read', limit: 10, remaining: 4, resetSeconds: 3 });
  });

  it('rounds Retry-After up to the whole second in which the next token arrives, and never answers 0', () => {
    const time = clock();
    const limiter = rateLimiter(time);
    const slow = { perSecond: 0.4, burst: 1 };
    const fast = { perSecond: 50, burst: 1 };
    limiter.take('slow', 'write', slow);
    limiter.take('fast', 'write', fast);

    const slowRefusal = limiter.take('slow', 'write', slow);
    time.advance(1_000);
    const slowLater = limiter.take('slow', 'write', slow);
    const fastRefusal = limiter.take('fast', 'write', fast);

    expect(slowRefusal).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 3, resetSeconds: 3 });
    expect(slowLater).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
    expect(fastRefusal).toEqual({
      allowed: true,
      rateClass: 'write',
      limit: 1,
      remaining: 0,
      resetSeconds: 1,
    });
  });

  it('gives a refused request no token: a client retrying every millisecond still gets perSecond through', () => {
    const time = clock();
    const limiter = rateLimiter(time);
    const budget = { perSecond: 5, burst: 5 };
    takeMany(() => limiter.take('key-a', 'check', budget), 5);

    let allowed = 0;
    for (let ms = 0; ms < 2_000; ms++) {
      time.advance(1);
      if (limiter.take('key-a', 'check', budget).allowed) allowed++;
    }

    expect(allowed).toBe(10);
  });

  it("keeps one bucket per key and class: one key's excess leaves another key and class untouched", () => {
    const limiter = rateLimiter(clock());
    const budget = { perSecond: 1, burst: 3 };
    takeMany(() => limiter.take('key-a', 'check', budget), 100);

    const otherKey = takeMany(() => limiter.take('key-b', 'check', budget), 100);
    const otherClass = takeMany(() => limiter.take('key-a', 'read', budget), 100);

    expect(otherKey).toBe(3);
    expect(otherClass).toBe(3);
  });

  it('follows a changed budget at once, capping the tokens at the new burst', () => {
    const limiter = rateLimiter(clock());

    limiter.take('key-a', 'check', { perSecond: 100, burst: 100 });
    const smaller = takeMany(() => limiter.take('key-a', 'check', { perSecond: 1, burst: 3 }), 10);

    expect(smaller).toBe(3);
  });

  it('at its size, drops buckets that are full again before any bucket still spending', () => {
    const time = clock();
    const limiter = rateLimiter({ ...time, maxBuckets: 2 });
    const budget = { perSecond: 1, burst: 2 };
    takeMany(() => limiter.take('spent', 'check', budget), 2);
    time.advance(100);
    limiter.take('idle', 'check', budget);
    time.advance(1_000);

    limiter.take('new', 'check', budget);
    const spentAgain = limiter.take('spent', 'check', budget);

    expect(spentAgain).toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe('rate limit settings', () => {
  it('reads the stage defaults per class and keeps the documented default for a class not named', () => {
    expect(parseRateLimits('check=50/80, report=0.5/3')).toEqual({
      ...DEFAULT_RATE_LIMITS,
      check: { perSecond: 50, burst: 80 },
      report: { perSecond: 0.5, burst: 3 },
    });
    expect(parseRateLimits(undefined)).toEqual(DEFAULT_RATE_LIMITS);
  });

  it('refuses an unknown class, a zero budget or a malformed entry', () => {
    for (const setting of ['admin=1/1', 'check=0/10', 'check=10/0', 'check=10', 'check=1/2.5']) {
      expect(() => parseRateLimits(setting), setting).toThrow(/RATE_LIMITS/);
    }
  });

  it("keeps only a key's well-formed budgets of known classes", () => {
    const stored = { check: { perSecond: 5, burst: 5 }, read: { perSecond: -1, burst: 5 }, admin: {} };

    expect(keyRateLimits(stored)).toEqual({ check: { perSecond: 5, burst: 5 } });
    expect(keyRateLimits({ read: 'fast' })).toBeUndefined();
    expect(keyRateLimits(undefined)).toBeUndefined();
  });
});
