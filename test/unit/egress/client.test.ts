import { type ClientRequestArgs, createServer } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { httpListReader } from '../../../shared/db/adapters/list-reader.ts';
import { httpLogClient } from '../../../shared/db/detection-sources.ts';
import { EgressRefusedError, egressRequest, keepAliveAgents } from '../../../shared/egress/index.ts';

/** A host on 127.0.0.1 counting connections and requests; `/big` answers `size` bytes, `/hang` never answers. */
let connections = 0;
const requests: string[] = [];
let size = 0;
const server = createServer((request, response) => {
  requests.push(request.url ?? '');
  if (request.url === '/hang') return;
  if (request.url?.startsWith('/big')) {
    response.writeHead(200).end(Buffer.alloc(size, 0x61));
    return;
  }
  response.writeHead(200).end('{"tree_size": 3}');
});
server.on('connection', () => {
  connections++;
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const { port } = server.address() as AddressInfo;
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
});
beforeEach(() => {
  connections = 0;
  requests.length = 0;
});

const LOCAL = { policy: { allowLoopback: true }, resolve: async () => ['127.0.0.1'] };
const AWS = { policy: { allowLoopback: false }, resolve: async () => ['93.184.216.34'] };

/**
 * A pool that hands over a socket connected to 127.0.0.1 whatever the checked lookup said: a
 * socket opened now (`fresh`) or one connected before the request (`kept`), as a pool keeps one.
 */
class MisdirectedAgent extends HttpsAgent {
  constructor(private readonly kept?: TLSSocket) {
    super({ keepAlive: true });
  }
  override createConnection(_: ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void) {
    const socket = this.kept ?? tlsConnect({ host: '127.0.0.1', port, servername: 'public.test' });
    callback?.(null, socket);
    return undefined;
  }
}
const misdirected = (agent: HttpsAgent) => ({ ...AWS, agents: { ...keepAliveAgents(), https: agent } });

describe('the connection under the egress policy', () => {
  it('refuses a new connection whose remote address is not public, sending no request', async () => {
    const request = egressRequest(
      `https://public.test:${port}/`,
      {},
      {
        ...misdirected(new MisdirectedAgent()),
        timeoutMs: 5000,
        maxBytes: 1024,
      },
    );

    await expect(request).rejects.toThrow(new EgressRefusedError('connected to 127.0.0.1, which is not allowed'));
    expect(requests).toEqual([]);
  });

  it('refuses a kept connection whose remote address is not public, sending no request', async () => {
    const kept = tlsConnect({ host: '127.0.0.1', port, servername: 'public.test' });
    await new Promise((connected) => kept.once('connect', connected));
    expect(kept.connecting).toBe(false);

    const request = egressRequest(
      `https://public.test:${port}/`,
      {},
      {
        ...misdirected(new MisdirectedAgent(kept)),
        timeoutMs: 5000,
        maxBytes: 1024,
      },
    );

    await expect(request).rejects.toThrow(new EgressRefusedError('connected to 127.0.0.1, which is not allowed'));
    expect(requests).toEqual([]);
  });

  it('reuses a kept loopback connection where the local stage allows loopback', async () => {
    const agents = keepAliveAgents();
    const options = { ...LOCAL, agents, timeoutMs: 5000, maxBytes: 1024 };

    for (let n = 0; n < 3; n++) await egressRequest(`http://127.0.0.1:${port}/`, {}, options);
    agents.http.destroy();

    expect(requests).toEqual(['/', '/', '/']);
    expect(connections).toBe(1);
  });
});

describe('the bounds of an answer', () => {
  it('reads at most maxBytes of a body and says it was cut off', async () => {
    size = 10_000;

    const answer = await egressRequest(
      `http://127.0.0.1:${port}/big`,
      {},
      { ...LOCAL, timeoutMs: 5000, maxBytes: 4096 },
    );

    expect(answer.status).toBe(200);
    expect(answer.body.length).toBe(4096);
    expect(answer.truncated).toBe(true);
  });

  it('fails an answer that does not come within timeoutMs', async () => {
    const request = egressRequest(`http://127.0.0.1:${port}/hang`, {}, { ...LOCAL, timeoutMs: 50, maxBytes: 1024 });

    await expect(request).rejects.toThrow('no answer within 50 ms');
  });

  it('fails a list larger than the list reader takes', async () => {
    size = 2048;

    const read = httpListReader({ ...LOCAL, maxBytes: 1024 })(`http://127.0.0.1:${port}/big`);

    await expect(read).rejects.toThrow(`http://127.0.0.1:${port}/big is larger than 1024 bytes`);
  });

  it('fails a CT log answer larger than 8 MiB', async () => {
    size = 8 * 1024 * 1024 + 1;

    const treeSize = httpLogClient(LOCAL).treeSize(`http://127.0.0.1:${port}/big`);

    await expect(treeSize).rejects.toThrow('CT log answer too large');
  });
});
