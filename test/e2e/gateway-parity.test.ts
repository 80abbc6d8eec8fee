import { readFileSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BASE_PATHS } from '../../infra/routes.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('parity');
const KEY = 'demo-acme-0123456789abcdef';
const server = createGateway();
let port = 0;

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * One request written byte for byte, as fetch cannot: the same header twice, and a target that
 * no client library would normalise first.
 */
const raw = (method: string, target: string, headers: [string, string][], body = '') =>
  new Promise<{ status: number; body: { code?: string; status?: string } }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const lines = [
      `${method} ${target} HTTP/1.1`,
      'host: 127.0.0.1',
      'connection: close',
      `content-length: ${Buffer.byteLength(body)}`,
      ...headers.map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', payload = ''] = text.split('\r\n\r\n');
      // The body may come in chunks: the JSON object is what lies between its outer braces.
      const json = payload.slice(payload.indexOf('{'), payload.lastIndexOf('}') + 1);
      try {
        resolve({ status: Number(head.split(' ')[1]), body: json ? JSON.parse(json) : {} });
      } catch (error) {
        reject(error);
      }
    });
  });

const CHECK_BODY = JSON.stringify({ content: 'https://acme.com' });

describe.each(BASE_PATHS)('the local gateway, like API Gateway, under %s', (base) => {
  it('answers a single X-API-KEY', async () => {
    const response = await raw('GET', `${base}/organization/asset-groups`, [['x-api-key', KEY]]);

    expect(response.status).toBe(200);
  });

  it('joins two X-API-KEY headers with a comma, which is no key: 401', async () => {
    const response = await raw('GET', `${base}/organization/asset-groups`, [
      ['x-api-key', KEY],
      ['X-API-KEY', KEY],
    ]);

    expect(response).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
  });

  it('joins two Authorization headers with a comma, which is no bearer key: 401', async () => {
    const response = await raw('GET', `${base}/organization/asset-groups`, [
      ['authorization', `Bearer ${KEY}`],
      ['Authorization', `Bearer ${KEY}`],
    ]);

    expect(response).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
  });

  it('routes the check itself, as a control for the dot segments below', async () => {
    const response = await raw('POST', `${base}/asset/check`, [['x-api-key', KEY]], CHECK_BODY);

    expect(response.status).toBe(200);
  });

  it.each([
    '/asset/blocklist/%2E%2E/check',
    '/asset/blocklist/%2e%2e/check',
    '/asset/blocklist/../check',
    '/asset/%2E/check',
    '/asset/./check',
  ])('does not resolve the dot segments of %s: 404, never the check', async (path) => {
    const response = await raw('POST', `${base}${path}`, [['x-api-key', KEY]], CHECK_BODY);

    expect(response).toEqual({
      status: 404,
      body: expect.objectContaining({ code: 'NOT_FOUND', message: 'Not Found' }),
    });
  });
});
