import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export const WEBHOOK_USAGE = `  webhook listen [--port <n>] [--secret <secret>]
                                       a local receiver on 127.0.0.1 (default port 4000): prints each delivery,
                                       and with --secret whether its X-ChainPatrol-Signature verifies`;

/** At most this much of a request body is read. */
const MAX_BODY_BYTES = 1024 * 1024;

const verifies = (secret: string, body: Buffer, signature: string | undefined): boolean => {
  if (signature === undefined) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/**
 * `npm run admin -- webhook listen`: a receiver for the local runtime's webhooks (which may call
 * `http://127.0.0.1:<port>`): answers 200 to every POST and prints its event id, signature check
 * and body; a delivery whose signature does not verify is answered 401.
 */
export const listenForWebhooks = (
  { port, secret }: { port: number; secret?: string },
  print: (line: string) => void,
): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const signature = request.headers['x-chainpatrol-signature'] as string | undefined;
        const checked =
          secret === undefined ? 'not checked (no --secret)' : verifies(secret, body, signature) ? 'valid' : 'INVALID';
        print(
          `${new Date().toISOString()} ${request.method} ${request.url} event ${String(request.headers['x-chainpatrol-event-id'])} signature ${checked}`,
        );
        print(`  ${body.toString('utf8')}`);
        response.writeHead(checked === 'INVALID' ? 401 : 200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
