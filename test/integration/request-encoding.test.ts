import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { apiEvent, call, errorBody } from '../fixtures/api-event.ts';
import { ACME_KEY, seedTwoOrganizations } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('request-encoding');
const { handler: createGroup } = await import('../../functions/asset-groups/create.ts');
const { handler: listGroups } = await import('../../functions/asset-groups/list.ts');
const server = createGateway();
let base = '';

beforeAll(async () => {
  await seedTwoOrganizations(table.db, table.tableName);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** `{"name":"<prefix><bytes>"}` as bytes: the name holds the sequence under test. */
const bodyWith = (bytes: number[]) =>
  Buffer.concat([Buffer.from('{"name":"Wallets '), Buffer.from(bytes), Buffer.from('"}')]);

/** Sequences a lenient decoder turns into U+FFFD: a stray continuation byte, a cut sequence, an overlong slash, an encoded surrogate, a byte never used. */
const NOT_UTF8: [string, number[]][] = [
  ['a stray continuation byte', [0x80]],
  ['a sequence cut short', [0xe2, 0x82]],
  ['an overlong encoding', [0xc0, 0xaf]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['the byte 0xff', [0xff]],
];

const groupNames = async () =>
  ((await call(listGroups, apiEvent({ apiKey: ACME_KEY }))).body as { groups: { name: string }[] }).groups.map(
    (group) => group.name,
  );

describe('a request body that is not UTF-8', () => {
  it.each(NOT_UTF8)('is a 400 naming the encoding and stores nothing when base64-encoded with %s', async (_, bytes) => {
    const before = await tableSnapshot(table);
    const event = { ...apiEvent({ method: 'POST', apiKey: ACME_KEY }), body: bodyWith(bytes).toString('base64') };

    const response = await call(createGroup, { ...event, isBase64Encoded: true });

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Request body must be valid UTF-8'));
    expect(await tableSnapshot(table)).toEqual(before);
  });

  it('is a 400 and stores nothing when passed as text holding an unpaired surrogate', async () => {
    const before = await tableSnapshot(table);

    const response = await call(
      createGroup,
      apiEvent({ method: 'POST', apiKey: ACME_KEY, body: '{"name":"Wallets \ud800"}' }),
    );

    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(errorBody('BAD_REQUEST', 'Request body must be valid UTF-8'));
    expect(await tableSnapshot(table)).toEqual(before);
  });

  it.each(NOT_UTF8)('is a 400 and stores nothing when sent raw to the gateway with %s', async (_, bytes) => {
    const before = await tableSnapshot(table);

    const response = await fetch(`${base}/organization/asset-groups`, {
      method: 'POST',
      headers: { 'X-API-KEY': ACME_KEY, 'content-type': 'application/json' },
      body: bodyWith(bytes),
    });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe('Request body must be valid UTF-8');
    expect(await tableSnapshot(table)).toEqual(before);
  });

  it('stores valid multi-byte UTF-8 as sent, raw and base64-encoded', async () => {
    const raw = await fetch(`${base}/organization/asset-groups`, {
      method: 'POST',
      headers: { 'X-API-KEY': ACME_KEY },
      body: bodyWith([...Buffer.from('ä €')]),
    });
    const encoded = await call(createGroup, {
      ...apiEvent({ method: 'POST', apiKey: ACME_KEY }),
      body: bodyWith([...Buffer.from('😀')]).toString('base64'),
      isBase64Encoded: true,
    });

    expect([raw.status, encoded.statusCode]).toEqual([200, 200]);
    expect(await groupNames()).toEqual(expect.arrayContaining(['Wallets ä €', 'Wallets 😀']));
  });
});
