import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/account/validate.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { cachedKeyResolver, KEY_GUESSES_MESSAGE } from '../../shared/domain/account/api-keys.ts';
import { tokenBuckets } from '../../shared/domain/account/rate-limits.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, GLOBEX_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('key-guessing');
const ATTACKER = '203.0.113.7';
const NEIGHBOUR = '198.51.100.9';
const BURST = 20;

/** `GET /validate` over the table's keys, with a failed-key budget of its own and a clock that stands still. */
const handlerWithBudget = () => {
  const repository = apiKeyRepository(table.db, table.tableName);
  const reads = { count: 0 };
  const store = {
    findByHash: (hash: string) => {
      reads.count++;
      return repository.findByHash(hash);
    },
  };
  const now = () => 1_000;
  const keys = cachedKeyResolver(store, {
    now,
    guesses: { buckets: tokenBuckets({ now }), budget: { perSecond: 1, burst: BURST } },
  });
  return { handler: createHandler({ keys }), reads };
};

const from = (sourceIp: string, apiKey: string) => {
  const event = apiEvent({ method: 'GET', path: '/validate', apiKey });
  return { ...event, requestContext: { ...event.requestContext, http: { ...event.requestContext.http, sourceIp } } };
};

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
});

describe('guessed API keys', () => {
  it('get 429 with Retry-After beyond the burst of one address, while good keys from it and elsewhere answer 200', async () => {
    const { handler, reads } = handlerWithBudget();
    await call(handler, from(ATTACKER, ACME_KEY));
    const readsBefore = reads.count;

    const [guesses, same, other] = await Promise.all([
      Promise.all(Array.from({ length: 300 }, (_, i) => call(handler, from(ATTACKER, `guess-${i}-0123456789abcdef`)))),
      call(handler, from(ATTACKER, ACME_KEY)),
      call(handler, from(NEIGHBOUR, GLOBEX_KEY)),
    ]);

    const refused = guesses.filter((response) => response.statusCode === 429);
    expect(guesses.filter((response) => response.statusCode === 401)).toHaveLength(BURST);
    expect(refused).toHaveLength(300 - BURST);
    expect(refused[0]?.body).toEqual(errorBody('TOO_MANY_REQUESTS', KEY_GUESSES_MESSAGE));
    expect(refused.every((response) => Number(response.headers['retry-after']) >= 1)).toBe(true);
    expect([same.statusCode, other.statusCode]).toEqual([200, 200]);
    expect(same.body).toMatchObject({ valid: true, organization: { slug: 'acme' } });
    expect(other.body).toMatchObject({ valid: true, organization: { slug: 'globex' } });
    expect(reads.count - readsBefore).toBe(BURST + 1);
  });

  it('answers 401, not 429, to an unknown key from an address still within its budget', async () => {
    const { handler } = handlerWithBudget();

    const response = await call(handler, from(NEIGHBOUR, 'never-issued-0123456789abcdef'));

    expect(response.statusCode).toBe(401);
  });
});
