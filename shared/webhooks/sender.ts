import { lookup as dnsLookup } from 'node:dns/promises';
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import { type AddressPolicy, isAllowedAddress, parseReceiverUrl, type Resolver } from '../domain/webhooks.ts';

/** What one attempt got: the receiver's status, or why there was none. */
export type SendResult = { status: number } | { error: string };

export type SendOptions = {
  policy: AddressPolicy;
  resolve: Resolver;
  timeoutMs: number;
  /** Connections kept open between deliveries; without them every send opens its own. */
  agents?: KeepAliveAgents;
};

export type KeepAliveAgents = { http: HttpAgent; https: HttpsAgent };

/**
 * A worker's pools of open connections to receivers: a receiver's next delivery reuses the
 * connection of the one before (its address was checked when it connected, as every new one is).
 */
export const keepAliveAgents = (): KeepAliveAgents => ({
  http: new HttpAgent({ keepAlive: true }),
  https: new HttpsAgent({ keepAlive: true }),
});

/** A kept connection the receiver closed meanwhile fails at once with one of these; the send goes again on a new one. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** At most this much of a response is read (and thrown away): a receiver cannot make a delivery hold memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

/**
 * The connection's own name lookup: it resolves once, refuses the whole connection if any
 * address is not a public one, and hands the socket only the addresses it checked, so the
 * address connected to is one that was checked (a name cannot resolve to a public address for
 * the check and to a private one for the connection).
 */
const checkedLookup =
  (resolve: Resolver, policy: AddressPolicy): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.length === 0 || addresses.some((address) => !isAllowedAddress(address, policy));
        if (refused) {
          callback(new RefusedAddressError(`${hostname} resolves to an address webhooks may not reach`), '', 4);
          return;
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        const wanted =
          options.family === 4 || options.family === 6 ? entries.filter((e) => e.family === options.family) : entries;
        if (options.all) {
          (callback as unknown as (error: null, entries: { address: string; family: number }[]) => void)(null, wanted);
          return;
        }
        const first = wanted[0];
        if (first === undefined) callback(new RefusedAddressError(`${hostname} has no usable address`), '', 4);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

/**
 * POSTs `body` to the receiver once: no redirect is followed (a 3xx is an answer like any
 * other), no answer within `timeoutMs` is a failure, and the response body is read up to
 * `MAX_RESPONSE_BYTES` and never kept.
 */
export const sendWebhook = (
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> =>
  new Promise((settle) => {
    let url: URL;
    try {
      url = parseReceiverUrl(target, options.policy);
    } catch (error) {
      settle({ error: (error as Error).message });
      return;
    }
    const loopbackHttp = url.protocol === 'http:';
    const policy = { allowLoopback: options.policy.allowLoopback && loopbackHttp };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isAllowedAddress(host, policy)) {
      settle({ error: 'address refused' });
      return;
    }
    let done = false;
    const finish = (result: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle(result);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent =
      options.agents === undefined ? false : url.protocol === 'https:' ? options.agents.https : options.agents.http;
    let request: ClientRequest;
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    const start = (again: boolean) => {
      request = send(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        lookup: checkedLookup(options.resolve, policy),
        agent,
      });
      request.on('socket', (socket: Socket) => {
        const checkRemote = () => {
          const remote = socket.remoteAddress;
          if (remote === undefined || !isAllowedAddress(remote, policy)) {
            finish({ error: 'address refused' });
            request.destroy();
          }
        };
        // A kept connection is connected already and will not say so again: its address is checked now.
        if (socket.connecting) socket.once('connect', checkRemote);
        else checkRemote();
      });
      request.on('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) {
            finish({ status });
            response.destroy();
          }
        });
        response.on('end', () => finish({ status }));
        response.on('error', () => finish({ status }));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (!again && request.reusedSocket && STALE_CONNECTION.has(error.code ?? '')) {
          start(true);
          return;
        }
        finish({ error: error instanceof RefusedAddressError ? 'address refused' : error.message });
      });
      request.end(body);
    };
    start(false);
  });
