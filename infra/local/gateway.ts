import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { BASE_PATH, ROUTES, type Route } from '../routes.ts';
import { lambdaContext } from './lambda-context.ts';

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

export const matchRoute = (method: string, path: string) => {
  const segments = path.split('/').filter(Boolean);
  for (const route of ROUTES) {
    if (route.method !== method) continue;
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
  request: { method: string; url: string; headers: IncomingMessage['headers']; remoteAddress?: string },
  route: Route,
  pathParameters: Record<string, string>,
  body: string,
): APIGatewayProxyEventV2 => {
  const url = new URL(request.url, 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = Date.now();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method,
        path: url.pathname,
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
  if (body.length > 0) event.body = body;
  return event;
};

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => done(size > MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', fail);
  });

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

/** Serves every route of the route table under `/v2`, turning requests into HTTP API 2.0 events. */
export const createGateway = (): Server => {
  const server = createServer(async (request, response) => {
    try {
      const url = URL.parse(request.url ?? '/', 'http://localhost');
      if (!url) return gatewayError(response, 400, 'BAD_REQUEST', 'Malformed request target');
      const path = url.pathname.startsWith(`${BASE_PATH}/`) ? url.pathname.slice(BASE_PATH.length) : undefined;
      const match = path === undefined ? undefined : matchRoute(request.method ?? 'GET', path);
      if (!match) return gatewayError(response, 404, 'NOT_FOUND', 'Not Found');
      const params = decodeParams(match.params);
      if (!params) return gatewayError(response, 400, 'BAD_REQUEST', 'Malformed percent-encoding in the path');
      const body = await readBody(request);
      if (body === undefined) return gatewayError(response, 413, 'PAYLOAD_TOO_LARGE', 'Request Entity Too Large');
      const event = toEvent(
        {
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          headers: request.headers,
          remoteAddress: request.socket.remoteAddress,
        },
        match.route,
        params,
        body,
      );
      const handler = await loadHandler(match.route.entry);
      send(response, await handler(event, lambdaContext(match.route.name)));
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', message: 'Local gateway failure', error: String(error) }));
      if (!response.headersSent) gatewayError(response, 500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    }
  });
  server.on('clientError', answerUnparsable);
  return server;
};
