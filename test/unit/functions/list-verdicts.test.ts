import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/lookups/list.ts';
import { cursorCodec } from '../../../shared/domain/core/cursor.ts';
import type { ExportPageQuery, VerdictExportStore } from '../../../shared/domain/verdict-feed/index.ts';
import { apiEvent, call, errorBody } from '../../fixtures/api-event.ts';
import { fakeKeys, orgKey, userKey } from '../../fixtures/fakes.ts';

/** A store that records what it was asked and answers one entry, with a next position on the first page. */
const recordingStore = () => {
  const asked: Omit<ExportPageQuery, 'sizeOf'>[] = [];
  const store: VerdictExportStore = {
    async page({ sizeOf: _, ...query }) {
      asked.push(query);
      const entry = {
        key: 'acme-airdrop.xyz',
        type: query.type,
        bits: 2 | 4,
        version: '1795255201000-9a0b1c2d3e4f5061-000000000001',
      };
      return query.position === undefined ? { entries: [entry], position: 'after-first' } : { entries: [] };
    },
  };
  return { asked, store };
};

const setup = () => {
  const { asked, store } = recordingStore();
  const handler = createHandler({
    keys: fakeKeys({ 'acme-key': orgKey('acme'), 'user-key': userKey('u-1') }),
    verdicts: store,
    cursors: cursorCodec(() => 'unit-secret'),
    now: () => Date.parse('2026-11-21T10:00:00Z'),
  });
  const list = (body: unknown, apiKey = 'acme-key') =>
    call(handler, apiEvent({ method: 'POST', path: '/v2/asset/list', apiKey, body }));
  return { asked, list };
};

describe('POST /asset/list', () => {
  it('answers BLOCKED verdicts of the type for yesterday and today, 100 per page, by default', async () => {
    const { asked, list } = setup();

    const response = await list({ type: 'URL' }, 'user-key');

    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({
      assets: [
        {
          content: 'acme-airdrop.xyz',
          type: 'URL',
          status: 'BLOCKED',
          watchStatus: 'ENABLED',
          updatedAt: '2026-11-21T10:00:01.000Z',
          version: '1795255201000-9a0b1c2d3e4f5061-000000000001',
        },
      ],
      next_page: expect.any(String),
    });
    expect(asked).toEqual([
      { type: 'URL', status: 'BLOCKED', from: '2026-11-20', to: '2026-11-21', limit: 100, maxBytes: 5_000_000 },
    ]);
  });

  it('reads the next page in the window of the first, even when the default window has moved on', async () => {
    const { asked, list } = setup();
    const first = await list({ type: 'PAGE', status: 'UNKNOWN' });
    const later = createHandler({
      keys: fakeKeys({ 'acme-key': orgKey('acme') }),
      verdicts: {
        async page({ sizeOf: _, ...query }) {
          asked.push(query);
          return { entries: [] };
        },
      },
      cursors: cursorCodec(() => 'unit-secret'),
      now: () => Date.parse('2026-11-23T00:30:00Z'),
    });

    const next = await call(
      later,
      apiEvent({
        method: 'POST',
        path: '/v2/asset/list',
        apiKey: 'acme-key',
        body: { type: 'PAGE', status: 'UNKNOWN', next_page: (first.body as { next_page: string }).next_page },
      }),
    );

    expect(next.body).toEqual({ assets: [], next_page: null });
    expect(asked[1]).toEqual({
      type: 'PAGE',
      status: 'UNKNOWN',
      from: '2026-11-20',
      to: '2026-11-21',
      limit: 100,
      maxBytes: 5_000_000,
      position: 'after-first',
    });
  });

  it('reads no later than tomorrow and answers an empty last page for a window that starts after it', async () => {
    const { asked, list } = setup();

    const open = await list({ type: 'URL', startDate: '2026-11-01', endDate: '2030-01-01', per_page: 10_000 });
    const future = await list({ type: 'URL', startDate: '2026-12-01', endDate: '2026-12-31' });

    expect(open.statusCode).toBe(200);
    expect(asked[0]).toEqual({
      type: 'URL',
      status: 'BLOCKED',
      from: '2026-11-01',
      to: '2026-11-22',
      limit: 10_000,
      maxBytes: 5_000_000,
    });
    expect(future.body).toEqual({ assets: [], next_page: null });
    expect(asked).toHaveLength(1);
  });

  it.each([
    [{}, 'Request body must be an object with a type', 'body.type'],
    [{ type: 'WEBSITE' }, 'Invalid asset type provided', 'body.type'],
    [{ type: 'URL', status: 'PENDING' }, 'status must be one of ALLOWED, BLOCKED, UNKNOWN', 'body.status'],
    [{ type: 'URL', startDate: '2026-02-30' }, 'Invalid date format. Use ISO 8601 format.', 'body.startDate'],
    [{ type: 'URL', endDate: 'yesterday' }, 'Invalid date format. Use ISO 8601 format.', 'body.endDate'],
    [{ type: 'URL', per_page: 0 }, 'per_page must be an integer between 1 and 10000', 'body.per_page'],
    [{ type: 'URL', per_page: 10_001 }, 'per_page must be an integer between 1 and 10000', 'body.per_page'],
    [{ type: 'URL', per_page: 2.5 }, 'per_page must be an integer between 1 and 10000', 'body.per_page'],
    [{ type: 'URL', per_page: '10' }, 'per_page must be an integer between 1 and 10000', 'body.per_page'],
    [{ type: 'URL', next_page: '' }, 'next_page must not be empty', 'body.next_page'],
  ])('returns 400 BAD_REQUEST for %j', async (body, message, path) => {
    const { asked, list } = setup();

    const response = await list(body);

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', message, { issues: [{ message, path }] }));
    expect(asked).toEqual([]);
  });

  it('returns 400 BAD_REQUEST when startDate is after endDate', async () => {
    const { list } = setup();

    const response = await list({ type: 'URL', startDate: '2026-11-10', endDate: '2026-11-01' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      errorBody('BAD_REQUEST', 'startDate must not be after endDate', {
        issues: [{ message: 'startDate must not be after endDate', path: 'startDate' }],
      }),
    );
  });

  it('returns 400 for a next_page that is not a cursor of this listing', async () => {
    const { asked, list } = setup();

    const response = await list({ type: 'URL', next_page: '0.bm90LWEtY3Vyc29yLW9mLXRoaXMtbGlzdGluZw' });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Invalid next_page cursor'));
    expect(asked).toEqual([]);
  });

  it('returns 401 without a key', async () => {
    const { list } = setup();

    const response = await list({ type: 'URL' }, 'unknown-key');

    expect(response.statusCode).toBe(401);
  });
});
