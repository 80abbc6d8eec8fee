import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { keepAliveAgents } from '../../../shared/egress/index.ts';
import { sendWebhook } from '../../../shared/webhooks/sender.ts';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.end('ok'));
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const { port } = server.address() as AddressInfo;
const agents = keepAliveAgents();
afterAll(async () => {
  agents.http.destroy();
  await new Promise((closed) => server.close(closed));
});

const options = {
  policy: { allowLoopback: true },
  resolve: async () => ['127.0.0.1'],
  timeoutMs: 5_000,
  agents,
};

describe('sending over kept connections', () => {
  it('reuses one connection for a receiver without piling listeners onto it', async () => {
    const connections = new Set<unknown>();
    server.on('connection', (socket) => connections.add(socket));

    for (let n = 0; n < 25; n++) {
      expect(await sendWebhook(`http://127.0.0.1:${port}/hook`, '{}', {}, options)).toEqual({ status: 200 });
    }

    expect(connections.size).toBe(1);
    const kept = Object.values(agents.http.freeSockets).flat();
    expect(kept).toHaveLength(1);
    expect(kept[0]?.listenerCount('connect')).toBeLessThanOrEqual(1);
  });
});
