import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The logger reads its level when it is created; the other tests keep it silent.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'WARN';
});

import { createDocumentClient } from '../../../shared/db/client.ts';
import { captureOutput } from '../../fixtures/output.ts';

/** The part of the SDK's Node.js request handler this test reads: the settings it was built with. */
type RequestHandler = { httpHandlerConfigs(): { logger?: { warn(message: string): void } } };

const output = captureOutput();
const table = createServer((_, response) => response.end('{}'));

beforeAll(() => new Promise<void>((resolve) => table.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => table.close(() => resolve())));

describe("the request handler's own warnings", () => {
  it('come out as JSON log lines rather than into the silent logger of the client', async () => {
    const { port } = table.address() as AddressInfo;
    const db = createDocumentClient(`http://127.0.0.1:${port}`);
    await db.send(new GetCommand({ TableName: 't', Key: { PK: 'a' } }));
    const handler = db.config.requestHandler as RequestHandler;

    handler.httpHandlerConfigs().logger?.warn('socket usage at capacity=50 and 3 additional requests are enqueued.');

    expect(output.lines()).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'socket usage at capacity=50 and 3 additional requests are enqueued.',
      }),
    ]);
  });
});
