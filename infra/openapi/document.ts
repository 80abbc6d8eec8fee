import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as v from 'valibot';
import { KEY_GUESSES_MESSAGE } from '../../shared/domain/account/api-keys.ts';
import {
  DEFAULT_KEY_GUESS_LIMIT,
  DEFAULT_RATE_LIMITS,
  RATE_CLASSES,
  type RateClass,
} from '../../shared/domain/account/rate-limits.ts';
import type { RequestSchema } from '../../shared/http/api-event.ts';
import { declarationOf, type HandlerDeclaration } from '../../shared/http/api-handler.ts';
import { ERROR_STATUS } from '../../shared/http/error-response.ts';
import { BASE_PATH, BASE_PATHS, ROUTES, type Route } from '../routes.ts';
import { findTwins, type Json, toDocumentSchema } from './convert.ts';
import { EXTRA_FIELDS } from './extra-fields.ts';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';
import { OPERATIONS } from './operations.ts';
import { type ExampleDoc, PUBLISHED_EXAMPLES } from './published-examples.ts';
import { errorBody } from './responses.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** A route, the request schema its module exports, and what its `apiHandler` was declared with (none on public routes). */
export type RouteDeclaration = { route: Route; request: RequestSchema; declaration: HandlerDeclaration | undefined };

/** Imports every route's module (as a cold start would) and reads what its handler was declared with. */
export const loadRoutes = (routes: readonly Route[] = ROUTES): Promise<RouteDeclaration[]> =>
  Promise.all(
    routes.map(async (route) => {
      const module = (await import(pathToFileURL(resolve(ROOT, route.entry)).href)) as {
        handler: object;
        request?: RequestSchema;
      };
      const declaration = declarationOf(module.handler);
      if (!declaration && !route.public) {
        throw new Error(`${route.name}: a route that needs a key must build its handler with apiHandler`);
      }
      return { route, request: declaration?.request ?? module.request ?? {}, declaration };
    }),
  );

const CODE_OF_STATUS = new Map<number, string>([
  ...Object.entries(ERROR_STATUS).map(([code, status]) => [status, code] as [number, string]),
  [500, 'INTERNAL_SERVER_ERROR'],
]);

/** Headers an error status always carries. */
const ERROR_HEADERS: Record<number, Json> = {
  503: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  },
};

const integerHeader = (description: string, required: boolean): Json => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});
/** What every answer of a keyed route that reached its key's bucket carries. */
const RATE_LIMIT_HEADERS: Record<string, Json> = {
  'RateLimit-Limit': integerHeader(
    'The size (burst) of the key’s bucket for the route’s class (of the address’s failed-key bucket on its 429)',
    true,
  ),
  'RateLimit-Remaining': integerHeader('Whole requests left in the bucket after this one', true),
  'RateLimit-Reset': integerHeader('Seconds until the bucket is full again', true),
};
const RATE_LIMITED_HEADERS: Record<string, Json> = {
  ...RATE_LIMIT_HEADERS,
  'Retry-After': integerHeader(
    'Seconds until the bucket holds a token again; sent when the key’s budget or the address’s failed-key budget is spent (not on a daily review limit)',
    false,
  ),
};

const defaultBudget = (rateClass: RateClass) =>
  `${DEFAULT_RATE_LIMITS[rateClass].perSecond}/s, burst ${DEFAULT_RATE_LIMITS[rateClass].burst}`;
const RATE_LIMITS_TEXT = `Every API key has a budget per route class: \`check\` (the asset check and the blocklist version), \`read\` (listings, lookups, metrics), \`write\` (everything that changes data), \`report\` (creating reports and disputes, submitting and scanning assets). A budget is a token bucket of \`burst\` tokens refilled at \`perSecond\` tokens a second, one token a request. Stage defaults: ${RATE_CLASSES.map((rateClass) => `\`${rateClass}\` ${defaultBudget(rateClass)}`).join('; ')}; a key may have its own limits. Over budget the answer is 429 \`TOO_MANY_REQUESTS\` (\`Rate limit exceeded for <class> requests\`) with \`Retry-After\`; every answer of a keyed route that reached the key's bucket carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`. One key's excess never changes another key's answers. Unknown or revoked keys are budgeted per source address as well (stage default ${DEFAULT_KEY_GUESS_LIMIT.perSecond}/s, burst ${DEFAULT_KEY_GUESS_LIMIT.burst}): beyond it an unknown key is 429 \`${KEY_GUESSES_MESSAGE}\` with \`Retry-After\`, while keys already in use keep answering.`;

const errorResponse = (
  status: number,
  description: string,
  headers: Json | undefined = ERROR_HEADERS[status],
): Json => {
  const code = CODE_OF_STATUS.get(status);
  if (!code) throw new Error(`No error code answers with status ${status}`);
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: `#/components/schemas/Error.${code}` } } },
  };
};

const toResponse = (status: number, doc: ResponseDoc, limited: boolean): Json => {
  if ('error' in doc) return errorResponse(status, doc.description);
  if ('mediaType' in doc) return { description: doc.description, content: { [doc.mediaType]: {} } };
  const headers = Object.entries(doc.headers ?? {}).map(([name, description]) => [
    name,
    { description, schema: { type: 'string' } },
  ]);
  const all = { ...Object.fromEntries(headers), ...(limited ? RATE_LIMIT_HEADERS : {}) };
  return {
    description: doc.description,
    ...(Object.keys(all).length > 0 ? { headers: all } : {}),
    content: {
      'application/json': {
        schema: toDocumentSchema(doc.body),
        ...(doc.example === undefined ? {} : { example: doc.example }),
      },
    },
  };
};

/** The errors any keyed route answers, whatever it does. */
const commonErrors = (declaration: HandlerDeclaration): Record<number, string> => {
  const { request, caller, scope } = declaration;
  const validates = Object.values(request).some(Boolean);
  const errors: Record<number, string> = {
    401:
      caller === 'organization'
        ? 'The key is missing, unknown or revoked, or is not an organization key'
        : 'The key is missing, unknown or revoked',
    403: `The key lacks the \`${scope}\` scope`,
    500: 'An internal error; the body carries only the request id, which the log line also has',
  };
  if (validates) errors[400] = 'Invalid input; `issues` lists every problem with its path';
  if (request.body) errors[413] = 'The body exceeds the size limit of the route';
  for (const status of new Set(Object.values(ERROR_STATUS))) {
    if (status >= 500) errors[status] = 'A store the service depends on is unavailable; retry later';
  }
  return errors;
};

type Entries = Record<string, v.GenericSchema>;
const entriesOf = (schema: v.GenericSchema | undefined): Entries =>
  ((schema as unknown as { entries?: Entries } | undefined)?.entries ?? {}) as Entries;
const isOptional = (schema: v.GenericSchema) => ['optional', 'nullish', 'exact_optional'].includes(schema.type);

/** The names of a path template's parameters, `{reportId}` → `reportId`. */
const templateNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

const parameters = (path: string, request: RequestSchema): Json[] => [
  ...Object.entries(entriesOf(request.pathParameters)).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: toDocumentSchema(schema),
  })),
  // Public routes read their path parameter without a schema: the template still names it.
  ...templateNames(path)
    .filter((name) => !(name in entriesOf(request.pathParameters)))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
  ...Object.entries(entriesOf(request.queryStringParameters)).map(([name, schema]) => ({
    name,
    in: 'query',
    required: !isOptional(schema),
    schema: toDocumentSchema(schema),
  })),
];

const requestBody = (request: RequestSchema, doc: OperationDoc): Json | undefined => {
  const body = request.body;
  if (!body) return undefined;
  const optional = isOptional(body);
  const schema = optional ? (body as unknown as { wrapped: v.GenericSchema }).wrapped : body;
  return {
    required: !optional,
    content: {
      'application/json': {
        schema: toDocumentSchema(schema),
        ...(doc.requestExample === undefined ? {} : { example: doc.requestExample }),
      },
    },
  };
};

type MediaJson = { content?: Record<string, { examples?: Record<string, Json> }> };

/**
 * Puts each named example on the parts of the operation it fills: its parameters, its request
 * body and the response of its status, all under the example's name, so request and answer pair up.
 */
const addExamples = (name: string, operation: Json, examples: Record<string, ExampleDoc>): void => {
  const params = (operation.parameters ?? []) as (Json & { examples?: Record<string, Json> })[];
  const responses = operation.responses as Record<string, MediaJson>;
  const json = (part: MediaJson | undefined, what: string) => {
    const media = part?.content?.['application/json'];
    if (!media) throw new Error(`${name}: an example has ${what}, which takes no JSON`);
    return media;
  };
  for (const [exampleName, example] of Object.entries(examples)) {
    // A 400 answers a request its schemas refuse: it is shown beside the answer, not offered as a request.
    const invalid = example.status === 400;
    for (const [param, value] of Object.entries(example.parameters ?? {})) {
      const parameter = params.find((candidate) => candidate.name === param);
      if (!parameter) throw new Error(`${name}: example ${exampleName} sets ${param}, which the route does not take`);
      if (!invalid) parameter.examples = { ...parameter.examples, [exampleName]: { value } };
    }
    if (example.body !== undefined) {
      const media = json(operation.requestBody as MediaJson | undefined, 'a body');
      if (!invalid) {
        media.examples = { ...media.examples, [exampleName]: { summary: example.summary, value: example.body } };
      }
    }
    const request = {
      ...(example.parameters ? { parameters: example.parameters } : {}),
      ...(example.body === undefined ? {} : { body: example.body }),
    };
    const media = json(responses[String(example.status)], `status ${example.status}`);
    media.examples = {
      ...media.examples,
      [exampleName]: {
        summary: example.summary,
        value: example.response,
        ...(example.withoutKey ? { 'x-without-key': true } : {}),
        ...(invalid ? { 'x-request': request } : {}),
      },
    };
  }
};

/** What each tag groups, for readers of the rendered description. */
const TAG_DESCRIPTIONS: Record<OperationDoc['tag'], string> = {
  Metrics: 'Counts of the organization’s reports, threats and takedowns over a date range.',
  Assets: 'The organization’s own assets: its allowlist, listed, added, updated and removed.',
  'Asset groups': 'Named groups the organization sorts its assets into.',
  'Asset check':
    'Verdicts on content: the asset check and the ways to sync the verdicts (list, changelog, hashed-prefix blocklist).',
  'Threat lifecycle':
    'From report to block: reports, proposals and their review, threats, takedowns, disputes, submissions and scans.',
  'Description and pages': 'This description, the pages rendered from it, and the public report pages.',
  Insights: 'Metrics v2, healthchecks, the queue snapshot and report search.',
  Account: 'The key’s user and organizations.',
  Webhooks: 'Webhook endpoints that receive asset status changes and detections, with their deliveries.',
  Detections: 'Detection sources, the organization’s detection configs and the detections they found.',
  TAXII:
    'STIX 2.1 over TAXII 2.1: each organization’s blocked and allowed collections, and a submissions collection that files indicators as a report.',
};

const operationId = (name: string) => name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

const operation = ({ route, request, declaration }: RouteDeclaration): Json => {
  const doc = OPERATIONS[route.name];
  if (!doc) throw new Error(`${route.name}: no description in infra/openapi/operations.ts`);
  const statuses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(doc.responses))
    statuses[status] = toResponse(Number(status), response, declaration !== undefined);
  if (declaration) {
    for (const [status, description] of Object.entries(commonErrors(declaration))) {
      statuses[status] ??= errorResponse(Number(status), description);
    }
    const spent = `The key's \`${declaration.rateClass}\` budget is spent (\`Rate limit exceeded for ${declaration.rateClass} requests\`), or the address's budget of unknown keys is (\`${KEY_GUESSES_MESSAGE}\`)`;
    const own = doc.responses[429];
    statuses[429] = errorResponse(
      429,
      own ? `${own.description}, or ${spent.replace('The key', 'the key')}` : spent,
      RATE_LIMITED_HEADERS,
    );
  }
  if (doc.errorBody) {
    const schema = toDocumentSchema(doc.errorBody);
    for (const [status, response] of Object.entries(statuses)) {
      if (Number(status) >= 400) statuses[status] = { ...response, content: { 'application/json': { schema } } };
    }
  }
  const missing = Object.entries(request).flatMap(([part, schema]) => (schema ? findTwins(schema, part).missing : []));
  if (missing.length > 0) throw new Error(`${route.name}: checks without a JSON Schema twin at ${missing.join(', ')}`);
  const body = requestBody(request, doc);
  const params = parameters(route.path, request);
  const extra = EXTRA_FIELDS[route.name];
  const description = extra
    ? `${doc.description}\n\nDeliberately answers more than the published page shows (\`x-extra-fields\`: ${extra.fields.map((field) => `\`${field}\``).join(', ')}): ${extra.why}`
    : doc.description;
  const built: Json = {
    operationId: operationId(route.name),
    summary: doc.summary,
    description: declaration
      ? `${description}\n\nRate class: \`${declaration.rateClass}\` (default ${defaultBudget(declaration.rateClass)}).`
      : description,
    ...(declaration ? { 'x-rate-class': declaration.rateClass } : {}),
    ...(extra ? { 'x-extra-fields': extra.fields } : {}),
    tags: [doc.tag],
    ...(route.public ? { security: [] } : {}),
    ...(declaration?.deprecation ? { deprecated: true } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: Object.fromEntries(Object.entries(statuses).sort(([a], [b]) => Number(a) - Number(b))),
  };
  addExamples(route.name, built, PUBLISHED_EXAMPLES[route.name] ?? {});
  return built;
};

/** The OpenAPI 3.1 description of every route of the route table. */
export const buildDocument = async (routes: readonly Route[] = ROUTES): Promise<Json> => {
  const paths: Record<string, Record<string, Json>> = {};
  for (const declared of await loadRoutes(routes)) {
    const item = paths[declared.route.path] ?? {};
    // A route at the host root is outside the servers' bases: it names its own.
    item[declared.route.method.toLowerCase()] = declared.route.root
      ? { ...operation(declared), servers: [{ url: '/', description: 'The host root, outside the API base' }] }
      : operation(declared);
    paths[declared.route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Asset Protection Service API',
      version: '2.0.0',
      description:
        'Organization metrics, assets, asset groups and the asset check. Every endpoint except this description and the pages needs an API key in `X-API-KEY` (or `Authorization: Bearer <key>`). Every error body is `{code, message, issues?, data?, error: {code, message}, requestId}`.\n\n' +
        'Named examples pair a request with its answer under one name. An example sent without a key says `x-without-key`; one answered with 400 carries its request in `x-request` (`parameters`, `body`) instead of on the request, since that request does not fit the schemas.\n\n' +
        RATE_LIMITS_TEXT,
    },
    servers: BASE_PATHS.map((url) => ({
      url,
      description: url === BASE_PATH ? 'The API' : 'The same API under the path earlier clients build',
    })),
    security: [{ ApiKey: [] }, { Bearer: [] }],
    tags: [...new Set(Object.values(OPERATIONS).map((doc) => doc.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name],
    })),
    paths,
    components: {
      schemas: Object.fromEntries(
        // Only the error bodies some response names (the TAXII routes answer TAXII error resources instead).
        [...new Set(CODE_OF_STATUS.values())]
          .filter((code) => JSON.stringify(paths).includes(`"#/components/schemas/Error.${code}"`))
          .map((code) => [`Error.${code}`, toDocumentSchema(errorBody(code))]),
      ),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
      },
    },
  };
};
