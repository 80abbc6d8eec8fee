import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { tableClient } from '../../shared/runtime.ts';
import { allowedOrigin, type CorsSettings, corsSettings } from '../cors.ts';
import { BASE_PATHS, ROUTES, type Route } from '../routes.ts';
import { lambdaContext } from './lambda-context.ts';
import { LOCAL_WORKERS_MODULE } from './local-workers.ts';
import { guardWrites, runAs } from './write-guard.ts';

const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const ROOT = resolve(import.meta.dirname, '../..');

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

const handlers = new Map<string, Promise<Handler>>();
/** Imports a route's module on first use, as a cold start would. */
export const loadHandler = (entry: string): Promise<Handler> => {
  let loaded = handlers.get(entry);
  if (!loaded) {
    loaded = import(pathToFileURL(resolve(ROOT, entry)).href).then((module: { handler: Handler }) => module.handler);
    handlers.set(entry, loaded);
  }
  return loaded;
};

/**
 * The path of a request target exactly as the client sent it. API Gateway matches routes on that
 * path segment by segment: it resolves no dot segments, literal or percent-encoded, and decodes
 * only the values of path variables (its HTTP API route documentation says so of parameters and
 * nothing of normalising the path). So `/v2/asset/blocklist/%2E%2E/check` has a segment `%2E%2E`
 * and matches no route there; WHATWG URL parsing would resolve it to `/v2/asset/check`, and so
 * must not decide the route here.
 */
const rawPathOf = (target: string): string => {
  if (target.startsWith('/')) return target.split(/[?#]/, 1)[0] as string;
  return URL.parse(target)?.pathname ?? '/';
};

/** The path after the base it is served under; undefined outside every base. */
const routePath = (pathname: string): string | undefined => {
  const base = BASE_PATHS.find((prefix) => pathname.startsWith(`${prefix}/`));
  return base === undefined ? undefined : pathname.slice(base.length);
};

/** The route `path` names for `method` (any method for a CORS preflight, `OPTIONS`). */
export const matchRoute = (method: string, path: string, routes: readonly Route[] = ROUTES) => {
  const segments = path.split('/').filter(Boolean);
  for (const route of routes) {
    if (route.method !== method && method !== 'OPTIONS') continue;
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const segment = segments[index] as string;
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name) {
        params[name] = segment;
        return true;
      }
      return part === segment;
    });
    if (matches) return { route, params };
  }
  return undefined;
};

/** Decodes path parameters as API Gateway does; a malformed escape is the client's error, not a handler's. */
const decodeParams = (params: Record<string, string>): Record<string, string> | undefined => {
  const decoded: Record<string, string> = {};
  try {
    for (const [name, value] of Object.entries(params)) decoded[name] = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  return decoded;
};

/** The HTTP API 2.0 event API Gateway would send for this request. */
export const toEvent = (
  request: {
    method: string;
    url: string;
    /** Repeated headers as arrays: API Gateway joins their values with commas. */
    headers: Record<string, string | string[] | undefined>;
    remoteAddress?: string;
    /** When the request arrived (epoch ms): `timeEpoch`, from which its handler's deadline runs. */
    receivedAt?: number;
  },
  route: Route,
  pathParameters: Record<string, string>,
  body: string | Buffer,
): APIGatewayProxyEventV2 => {
  const url = new URL(request.url, 'http://localhost');
  const rawPath = rawPathOf(request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway tells the function the scheme the client used; this server speaks plain HTTP.
  headers['x-forwarded-proto'] = 'http';
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = request.receivedAt ?? Date.now();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: `${route.method} ${route.path}`,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    isBase64Encoded: false,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (Object.keys(pathParameters).length > 0) event.pathParameters = pathParameters;
  if (body.length > 0) {
    // Bytes that are not UTF-8 reach the function base64-encoded, as binary bodies do from API Gateway.
    const binary = typeof body !== 'string' && !isUtf8(body);
    event.body = typeof body === 'string' ? body : body.toString(binary ? 'base64' : 'utf8');
    event.isBase64Encoded = binary;
  }
  return event;
};

const readBody = (request: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => done(size > MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks)));
    request.on('error', fail);
  });

/** The CORS response headers API Gateway adds for a request from an allowed origin. */
const corsHeaders = (cors: CorsSettings, request: IncomingMessage, preflight: boolean): Record<string, string> => {
  const origin = allowedOrigin(cors, request.headers.origin);
  if (origin === undefined) return {};
  const headers: Record<string, string> = { 'access-control-allow-origin': origin };
  if (origin !== '*') headers.vary = 'Origin';
  if (!preflight) return { ...headers, 'access-control-expose-headers': cors.exposeHeaders.join(',') };
  return {
    ...headers,
    'access-control-allow-methods': cors.allowMethods.join(','),
    'access-control-allow-headers': cors.allowHeaders.join(','),
    'access-control-max-age': String(cors.maxAgeSeconds),
  };
};

const send = (response: ServerResponse, result: APIGatewayProxyResultV2): void => {
  if (typeof result === 'string') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(result);
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body ?? '';
  response
    .writeHead(result.statusCode ?? 200, headers)
    .end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
};

const gatewayError = (response: ServerResponse, status: number, code: string, message: string): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(errorBody(code, message));
};

const errorBody = (code: string, message: string): string =>
  JSON.stringify({ code, message, error: { code, message }, requestId: randomUUID() });

/** Node's own answer to a request it cannot parse is a bare 400; give it the documented body. */
const answerUnparsable = (_error: Error, socket: Duplex): void => {
  if (!socket.writable) return;
  const body = errorBody('BAD_REQUEST', 'Malformed HTTP request');
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

export { checkSamplesSettled } from './local-workers.ts';

/**
 * Serves every route of the route table under each base path, turning requests into HTTP API 2.0
 * events, and answers CORS as the HTTP API's `corsPreflight` does. Each handler runs as its route:
 * a write outside the partitions the route declares is refused as its role would be in AWS, and the
 * request fails (write-guard.ts). `routes` replaces the route table (tests of the guard).
 */
export const createGateway = ({
  cors = corsSettings(),
  routes = ROUTES,
}: {
  cors?: CorsSettings;
  routes?: readonly Route[];
} = {}): Server => {
  // Scans, detection runs and the check's samples run in this process, each as its own worker.
  process.env.LOCAL_WORKERS = LOCAL_WORKERS_MODULE;
  const server = createServer(async (request, response) => {
    const receivedAt = Date.now();
    try {
      const url = URL.parse(request.url ?? '/', 'http://localhost');
      if (!url) return gatewayError(response, 400, 'BAD_REQUEST', 'Malformed request target');
      const method = request.method ?? 'GET';
      const rawPath = rawPathOf(request.url ?? '/');
      const path = routePath(rawPath);
      // A route served at the host root (TAXII discovery) answers outside every base, as its API Gateway route does.
      const match =
        path === undefined
          ? matchRoute(
              method,
              rawPath,
              routes.filter((route) => route.root),
            )
          : matchRoute(
              method,
              path,
              routes.filter((route) => !route.root),
            );
      for (const [name, value] of Object.entries(corsHeaders(cors, request, method === 'OPTIONS'))) {
        response.setHeader(name, value);
      }
      if (!match) return gatewayError(response, 404, 'NOT_FOUND', 'Not Found');
      if (method === 'OPTIONS') return void response.writeHead(204).end();
      const params = decodeParams(match.params);
      if (!params) return gatewayError(response, 400, 'BAD_REQUEST', 'Malformed percent-encoding in the path');
      const body = await readBody(request);
      if (body === undefined) return gatewayError(response, 413, 'PAYLOAD_TOO_LARGE', 'Request Entity Too Large');
      const event = toEvent(
        {
          method,
          url: request.url ?? '/',
          // Node keeps only the first of some repeated headers (`authorization` among them) and joins others with ", ".
          headers: request.headersDistinct,
          remoteAddress: request.socket.remoteAddress,
          receivedAt,
        },
        match.route,
        params,
        body,
      );
      const { route } = match;
      const handler = await loadHandler(route.entry);
      // Here, not at startup: the client is built from the environment the handlers see.
      guardWrites(tableClient());
      const writes = route.writes ?? [];
      send(response, await runAs({ name: route.name, writes }, () => handler(event, lambdaContext(route.name))));
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', message: 'Local gateway failure', error: String(error) }));
      if (!response.headersSent) gatewayError(response, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    }
  });
  server.on('clientError', answerUnparsable);
  return server;
};
