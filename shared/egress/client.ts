import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import {
  checkAddresses,
  type EgressPolicy,
  EgressRefusedError,
  isAllowedAddress,
  type Reach,
  type Resolver,
  targetOf,
} from './policy.ts';

/** The system's resolver (getaddrinfo), every address of a name in the order it gives them. */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export type EgressAgents = { http: HttpAgent; https: HttpsAgent };

/**
 * A caller's pools of open connections: a host's next request reuses the connection of the one
 * before. Its address was checked when it connected and is checked again on every reuse.
 */
export const keepAliveAgents = (): EgressAgents => ({
  http: new HttpAgent({ keepAlive: true }),
  https: new HttpsAgent({ keepAlive: true }),
});

export type EgressOptions = {
  policy: EgressPolicy;
  resolve: Resolver;
  /** The whole exchange (name lookup, connection, answer and its body) within this long, or it fails. */
  timeoutMs: number;
  /** At most this much of an answer's body is read; beyond it the answer is cut off and marked `truncated`. */
  maxBytes: number;
  /** Connections kept open between requests; without them every request opens its own. */
  agents?: EgressAgents;
};

/** What a caller holds to reach the world: the stage's policy, its resolver, and optionally its connection pools. */
export type Egress = Pick<EgressOptions, 'policy' | 'resolve' | 'agents'>;

export type EgressRequest = { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string };

/** An answer as received: any status (a 3xx is an answer like any other, never followed). */
export type EgressResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer; truncated: boolean };

/** A kept connection the other end closed meanwhile fails at once with one of these; the request goes again on a new one. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/**
 * The connection's own name lookup: it resolves once, refuses the whole connection if any
 * address is not allowed, and hands the socket only the addresses it checked, so the address
 * connected to is one that was checked (a name cannot resolve to a public address for a check
 * and to a private one for the connection).
 */
const checkedLookup =
  (resolve: Resolver, reach: Reach): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        try {
          checkAddresses(hostname, addresses, reach);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 4);
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
        if (first === undefined) callback(new EgressRefusedError(`${hostname} has no usable address`), '', 4);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(new EgressRefusedError(`${hostname} does not resolve`, { cause: error }), '', 4),
    );
  };

/**
 * One request under the egress policy: the URL's form checked first, the name resolved by the
 * policy's resolver and every answer checked, the connected address checked again (also on a
 * kept connection), no redirect followed, the whole exchange bounded by `timeoutMs` and the body
 * by `maxBytes`. Refusals reject with `EgressRefusedError` before anything is sent.
 */
export const egressRequest = (text: string, request: EgressRequest, options: EgressOptions): Promise<EgressResponse> =>
  new Promise((settle, fail) => {
    let target: ReturnType<typeof targetOf>;
    try {
      target = targetOf(text, options.policy);
    } catch (error) {
      fail(error);
      return;
    }
    const { url, reach } = target;
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const agent = options.agents === undefined ? false : secure ? options.agents.https : options.agents.http;
    const body = request.body ?? '';
    const headers = {
      ...request.headers,
      ...(request.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
    };
    let done = false;
    let current: ClientRequest | undefined;
    const timer = setTimeout(() => {
      finish(new Error(`no answer within ${options.timeoutMs} ms`));
      current?.destroy();
    }, options.timeoutMs);
    const finish = (outcome: EgressResponse | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (outcome instanceof Error) fail(outcome);
      else settle(outcome);
    };
    const start = (again: boolean) => {
      const outgoing = send(url, {
        method: request.method ?? 'GET',
        headers,
        lookup: checkedLookup(options.resolve, reach),
        agent,
      });
      current = outgoing;
      outgoing.on('socket', (socket: Socket) => {
        const checkRemote = () => {
          const remote = socket.remoteAddress;
          if (remote === undefined || !isAllowedAddress(remote, reach)) {
            outgoing.destroy(
              new EgressRefusedError(`connected to ${remote ?? 'an unknown address'}, which is not allowed`),
            );
          }
        };
        // A kept connection is connected already and will not say so again: its address is checked now.
        if (socket.connecting) socket.once('connect', checkRemote);
        else checkRemote();
      });
      outgoing.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const answer = (truncated: boolean) => ({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
          truncated,
        });
        response.on('data', (chunk: Buffer) => {
          if (done) return;
          const room = options.maxBytes - read;
          read += chunk.length;
          if (read > options.maxBytes) {
            chunks.push(chunk.subarray(0, room));
            finish(answer(true));
            response.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => finish(answer(false)));
        response.on('error', (error) => finish(error));
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (!again && !done && outgoing.reusedSocket && STALE_CONNECTION.has(error.code ?? '')) {
          start(true);
          return;
        }
        finish(error);
      });
      outgoing.end(request.body);
    };
    start(false);
  });
