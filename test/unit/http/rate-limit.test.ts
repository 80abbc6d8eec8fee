import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { loadRoutes } from '../../../infra/openapi/document.ts';
import { ROUTES } from '../../../infra/routes.ts';
import { DEFAULT_RATE_LIMITS, type RateClass, rateLimiter } from '../../../shared/domain/account/rate-limits.ts';
import { apiHandler } from '../../../shared/http/api-handler.ts';
import { json } from '../../../shared/http/json.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { fakeKeys, orgKey } from '../../fixtures/fakes.ts';

const keys = fakeKeys({
  limited: { ...orgKey('acme'), rateLimits: { check: { perSecond: 1, burst: 2 } } },
  plain: orgKey('acme'),
  other: orgKey('globex'),
});

/** A keyed handler of `rateClass` over its own buckets and a clock the test moves. */
const limitedHandler = (rateClass: RateClass = 'check') => {
  let now = 5_000_000;
  const limits = { limiter: rateLimiter({ now: () => now }), defaults: () => DEFAULT_RATE_LIMITS };
  const request = { body: v.object({ content: v.string() }) };
  const handler = apiHandler({ request, caller: 'any', scope: 'read', rateClass, keys, limits }, async ({ body }) =>
    json(200, { echoed: body.content }),
  );
  const send = (apiKey: string | null, body: unknown = { content: 'x' }) =>
    call(handler, apiEvent({ method: 'POST', apiKey, body }));
  return { send, advance: (ms: number) => (now += ms) };
};

describe('the per-key rate limit of apiHandler', () => {
  it('answers 429 TOO_MANY_REQUESTS with Retry-After once the key has spent its own burst', async () => {
    const api = limitedHandler();
    await api.send('limited');
    await api.send('limited');

    const refused = await api.send('limited');

    expect(refused.statusCode).toBe(429);
    expect(refused.body).toEqual(errorBody('TOO_MANY_REQUESTS', 'Rate limit exceeded for check requests'));
    expect(refused.headers).toMatchObject({
      'Retry-After': '1',
      'RateLimit-Limit': '2',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '2',
    });
  });

  it('puts the RateLimit headers on successes and on errors after the key check, but not on a 401', async () => {
    const api = limitedHandler('read');

    const ok = await api.send('plain');
    const invalid = await api.send('plain', { content: 7 });
    const noKey = await api.send(null);

    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toMatchObject({ 'RateLimit-Limit': '40', 'RateLimit-Remaining': '39', 'RateLimit-Reset': '1' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers).toMatchObject({ 'RateLimit-Limit': '40', 'RateLimit-Remaining': '38' });
    expect(noKey.statusCode).toBe(401);
    expect(Object.keys(noKey.headers).filter((name) => name.startsWith('RateLimit'))).toEqual([]);
  });

  it("leaves other keys' answers unchanged while one key is refused", async () => {
    const api = limitedHandler();
    for (let i = 0; i < 5; i++) await api.send('limited');

    const others = await Promise.all(Array.from({ length: 20 }, () => api.send('other')));

    expect(others.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(others.every((response) => (response.body as { echoed: string }).echoed === 'x')).toBe(true);
  });

  it('serves the key again once its bucket has refilled', async () => {
    const api = limitedHandler();
    await api.send('limited');
    await api.send('limited');
    const refused = await api.send('limited');

    api.advance(1_000);
    const again = await api.send('limited');

    expect(refused.statusCode).toBe(429);
    expect(again.statusCode).toBe(200);
  });

  it('uses the stage default for a class the key has no limit of', async () => {
    const api = limitedHandler('write');

    const responses = await Promise.all(Array.from({ length: 25 }, () => api.send('limited')));

    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(DEFAULT_RATE_LIMITS.write.burst);
  });
});

describe('route classes', () => {
  it('declares in every keyed handler the class of its route table entry, and none for public routes', async () => {
    const declared = await loadRoutes();

    const mismatches = declared
      .filter(({ route, declaration }) => route.rateClass !== declaration?.rateClass)
      .map(({ route, declaration }) => `${route.name}: table ${route.rateClass}, handler ${declaration?.rateClass}`);

    expect(mismatches).toEqual([]);
  });

  it('classes the check and blocklist routes as check, reports as report, other writes as write', () => {
    const routes = ROUTES.filter((route) => !route.public);
    const inClass = (rateClass: RateClass) => routes.filter((route) => route.rateClass === rateClass);

    expect(inClass('check').map((route) => route.path)).toEqual([
      '/asset/check',
      '/asset/blocklist/version',
      '/asset/blocklist/confirm',
    ]);
    expect(inClass('report').map((route) => route.path)).toEqual([
      '/report/create',
      '/dispute/create',
      '/asset/submit',
      '/asset/scan',
    ]);
    expect(inClass('write').every((route) => route.access === 'write')).toBe(true);
    expect(inClass('read').every((route) => route.access === 'read')).toBe(true);
    expect(routes.every((route) => route.rateClass !== undefined)).toBe(true);
  });
});
