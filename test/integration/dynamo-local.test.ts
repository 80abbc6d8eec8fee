import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, inject, it } from 'vitest';

const port = Number(new URL(inject('dynamoEndpoint')).port);

/** The local addresses of the sockets listening on `port`, as the kernel lists them in /proc/net/tcp and tcp6. */
const listeningAddresses = (): string[] =>
  ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter(([, local = '', , state]) => state === '0A' && Number.parseInt(local.split(':')[1] ?? '', 16) === port)
      .map(([, local = '']) => local.split(':')[0] ?? ''),
  );

const LOOPBACK_V4 = '0100007F';
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

describe('DynamoDB Local as the tests and npm start run it', () => {
  it('listens on 127.0.0.1 only, on no other interface', () => {
    expect(listeningAddresses()).toEqual([LOOPBACK_V4]);
  });

  it.skipIf(externalAddress === undefined)('refuses a connection to the machine’s own network address', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host: externalAddress, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });

    expect(outcome).toBe('ECONNREFUSED');
  });
});
