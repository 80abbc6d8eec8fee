import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { guardWrites, runAs, UndeclaredWriteError } from '../../infra/local/write-guard.ts';
import { ROUTES, type Route } from '../../infra/routes.ts';
import { key, PARTITIONS, type TablePartition } from '../../shared/db/keys.ts';
import { tableClient } from '../../shared/runtime.ts';
import { apiEvent, context, parse, type Response } from '../fixtures/api-event.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

const table = await createTestTable('write-guard');
const ACME = 'demo-acme-0123456789abcdef';
const { handler: createGroup } = (await import('../../functions/asset-groups/create.ts')) as unknown as {
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;
};

const routeNamed = (name: string) => ROUTES.find((route) => route.name === name) as Route;
/** The route table with one route's declaration cut down to `keep`. */
const declaring = (name: string, keep: (partition: TablePartition) => boolean): Route[] =>
  ROUTES.map((route) => (route.name === name ? { ...route, writes: (route.writes ?? []).filter(keep) } : route));

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
};
const whole = createGateway();
const cut = createGateway({
  routes: declaring('create-asset-group', () => false).map((route) =>
    route.name === 'delete-asset-group'
      ? { ...route, writes: route.writes?.filter((partition) => partition !== PARTITIONS.asset) }
      : route,
  ),
});
let bases = { whole: '', cut: '' };

beforeAll(async () => {
  await seed(table.db, table.tableName, JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  bases = { whole: await listen(whole), cut: await listen(cut) };
  guardWrites(tableClient());
});
afterAll(async () => {
  await Promise.all([whole, cut].map((server) => new Promise((resolve) => server.close(resolve))));
});
afterEach(() => {
  vi.restoreAllMocks();
});

const send = async (base: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': ACME },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { code?: string; name?: string } };
};
const gatewayErrors = () => vi.spyOn(console, 'error').mockImplementation(() => undefined);

describe('the local gateway with a route declaration cut short', () => {
  it('answers 500 and writes nothing when a route writes a partition it does not declare', async () => {
    const errors = gatewayErrors();
    const before = await tableSnapshot(table);

    const response = await send(bases.cut, 'POST', '/organization/asset-groups', { name: 'Campaigns' });

    expect(response.status).toBe(500);
    expect(response.body.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await tableSnapshot(table)).toEqual(before);
    expect(String(errors.mock.calls[0]?.[0])).toContain(
      'create-asset-group is not authorized to perform: dynamodb:UpdateItem on partition ORG#acme: it declares writes to no partition',
    );
  });

  it('serves the same request when the route declares what it writes', async () => {
    const response = await send(bases.whole, 'POST', '/organization/asset-groups', { name: 'Campaigns' });

    expect(response.status).toBe(200);
    expect(response.body.name).toBe('Campaigns');
  });

  it('fails a request whose function goes on after the refusal (here the group delete, which leaves the ungrouping to the sweeper)', async () => {
    const errors = gatewayErrors();

    const response = await send(bases.cut, 'DELETE', '/organization/asset-groups/1');

    expect(response.status).toBe(500);
    expect(String(errors.mock.calls[0]?.[0])).toMatch(
      /UndeclaredWriteError: .*delete-asset-group is not authorized to perform: dynamodb:UpdateItem on partition ASSET#\d+/,
    );
  });
});

describe('writes while a function runs', () => {
  const readRoute = routeNamed('list-asset-groups');
  const asReadRoute = <T>(work: () => Promise<T>) =>
    runAs({ name: readRoute.name, writes: readRoute.writes ?? [] }, work);
  const newGroup = { ...key.group('acme', 90), entity: 'GROUP', orgId: 'acme', id: 90, name: 'Sneaked in' };

  it('are refused for a read route as DynamoDB refuses a role without the grant, and nothing is written', async () => {
    const write = asReadRoute(() => tableClient().send(new PutCommand({ TableName: table.tableName, Item: newGroup })));

    await expect(write).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: expect.stringContaining('list-asset-groups is not authorized to perform: dynamodb:PutItem'),
    });
    const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.group('acme', 90) }));
    expect(Item).toBeUndefined();
  });

  it('reach the handler as the refusal, which its error policy answers with 500', async () => {
    let response: Response | undefined;

    const run = runAs({ name: 'create-asset-group', writes: [] }, async () => {
      const event = apiEvent({
        method: 'POST',
        path: '/organization/asset-groups',
        apiKey: ACME,
        body: { name: 'Refused' },
      });
      response = parse(await createGroup(event, context));
    });

    await expect(run).rejects.toThrow(UndeclaredWriteError);
    expect(response?.statusCode).toBe(500);
    expect(response?.body).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
  });

  it('are checked item by item in a transaction, condition checks included', async () => {
    const items = [
      { Put: { TableName: table.tableName, Item: { ...key.asset(91), entity: 'ASSET' } } },
      {
        ConditionCheck: {
          TableName: table.tableName,
          Key: key.group('acme', 93),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    ];
    const transact = (writes: TablePartition[]) =>
      runAs({ name: 'transaction', writes }, () =>
        tableClient().send(new TransactWriteCommand({ TransactItems: items })),
      );

    await expect(transact([PARTITIONS.asset])).rejects.toThrow(
      'transaction is not authorized to perform: dynamodb:ConditionCheckItem on partition ORG#acme',
    );
    await expect(transact([PARTITIONS.asset, PARTITIONS.organizationScoped])).resolves.toBeDefined();
  });

  it('are checked request by request in a batch write', async () => {
    const batch = runAs({ name: 'batch', writes: [PARTITIONS.asset] }, () =>
      tableClient().send(
        new BatchWriteCommand({
          RequestItems: {
            [table.tableName]: [
              { PutRequest: { Item: { ...key.asset(92), entity: 'ASSET' } } },
              { DeleteRequest: { Key: key.claim('pending#acme#BLOCKED#example.com') } },
            ],
          },
        }),
      ),
    );

    await expect(batch).rejects.toThrow('batch is not authorized to perform: dynamodb:DeleteItem on partition CLAIM#');
  });

  it("are not checked when no function runs: the operator's tools and the seed write anywhere", async () => {
    const write = tableClient().send(
      new PutCommand({ TableName: table.tableName, Item: { ...key.user('u-9'), entity: 'USER', userId: 'u-9' } }),
    );

    await expect(write).resolves.toBeDefined();
  });
});
