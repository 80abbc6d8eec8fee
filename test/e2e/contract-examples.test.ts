import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { BASE_PATHS, ROUTES, type Route } from '../../infra/routes.ts';
import { assertDocumented, headerOf, KNOWN_DIVERGENCES, openApiDocument } from '../fixtures/contract.ts';
import {
  documentedOrganization,
  exampleOrganization,
  mergeFixtures,
  sharedVerdicts,
} from '../fixtures/contract-data.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

type Example = {
  summary?: string;
  value: unknown;
  'x-without-key'?: boolean;
  /** The request of an answer to invalid input, which the description does not offer as a request. */
  'x-request'?: { parameters?: Record<string, string>; body?: unknown };
};
type Media = { schema?: unknown; example?: unknown; examples?: Record<string, Example> };
type Parameter = {
  name: string;
  in: 'path' | 'query';
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};
type Operation = {
  'x-extra-fields'?: string[];
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json'?: Media } };
  responses: Record<string, { content?: { 'application/json'?: Media } }>;
};

type Case = {
  id: string;
  route: Route;
  name: string;
  summary: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  withoutKey: boolean;
  status: number;
  response: unknown;
};

/** Every named example of the committed description, as the request it describes and the answer it shows. */
const examplesOf = (): Case[] =>
  ROUTES.flatMap((route) => {
    const operation = (openApiDocument.paths[route.path] as Record<string, Operation> | undefined)?.[
      route.method.toLowerCase()
    ];
    if (!operation) return [];
    const answers = Object.entries(operation.responses).flatMap(([status, response]) =>
      Object.entries(response.content?.['application/json']?.examples ?? {}).map(
        ([name, example]) => [name, { status: Number(status), example }] as const,
      ),
    );
    return answers.map(([name, { status, example }]) => {
      let path = route.path;
      const query = new URLSearchParams();
      const invalid = example['x-request'];
      for (const parameter of operation.parameters ?? []) {
        const value = invalid ? invalid.parameters?.[parameter.name] : parameter.examples?.[name]?.value;
        if (value === undefined) continue;
        if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
        else query.set(parameter.name, String(value));
      }
      return {
        id: `${route.name}/${name}`,
        route,
        name,
        summary: example.summary ?? name,
        path,
        query,
        body: invalid ? invalid.body : operation.requestBody?.content['application/json']?.examples?.[name]?.value,
        withoutKey: example['x-without-key'] === true,
        status,
        response: example.value,
      };
    });
  });

const CASES = examplesOf();
const operationOf = (route: Route) =>
  (openApiDocument.paths[route.path] as Record<string, Operation> | undefined)?.[route.method.toLowerCase()];

/**
 * The single example of an operation (its request body's `example` and its first response's
 * `example`), written for the organization `acme`. Reads are replayed there; a write's single
 * example is checked against its schemas only, since replaying it under both base paths in one
 * organization would meet its own first replay (its route's named examples are replayed instead).
 */
type Documented = { route: Route; status: number; body: unknown; response: unknown };
const documentedOf = (): Documented[] =>
  ROUTES.flatMap((route) => {
    const operation = (openApiDocument.paths[route.path] as Record<string, Operation> | undefined)?.[
      route.method.toLowerCase()
    ];
    if (!operation) return [];
    const body = operation.requestBody?.content['application/json']?.example;
    const responses = Object.entries(operation.responses);
    // The response that shows an example; for a request example alone, the success it gets.
    const answered =
      responses.find(([, response]) => response.content?.['application/json']?.example !== undefined) ??
      (body === undefined ? undefined : responses.find(([status]) => status.startsWith('2')));
    if (!answered) return [];
    const [status, response] = answered;
    return [{ route, status: Number(status), body, response: response.content?.['application/json']?.example }];
  });
const DOCUMENTED = documentedOf();
const DOCUMENTED_KEY = 'contract-documented-key-0123456789';
/**
 * Single examples checked against their schemas but not replayed with the documented
 * organization's key: a scan result names a scan that exists only once one was started, and the
 * caller's own profile answers a user key only.
 */
const NOT_REPLAYED = new Set(['get-scan-result', 'get-current-user']);

const kindOf = (value: unknown) => (Array.isArray(value) ? 'array' : typeof value);

/**
 * Where `actual` differs from `expected` in shape: a field it lacks, or a field of another type (null
 * on either side is a value of any type); an array is compared by its first item.
 */
const shapeDifferences = (expected: unknown, actual: unknown, path = '$'): string[] => {
  if (expected === null || actual === null || expected === undefined) return [];
  if (kindOf(expected) !== kindOf(actual)) return [`${path} is ${kindOf(actual)}, not ${kindOf(expected)}`];
  if (Array.isArray(expected)) {
    if (expected.length === 0) return [];
    if ((actual as unknown[]).length === 0) return [`${path} is empty`];
    return shapeDifferences(expected[0], (actual as unknown[])[0], `${path}[0]`);
  }
  if (typeof expected !== 'object') return [];
  return Object.entries(expected as Record<string, unknown>).flatMap(([field, value]) =>
    field in (actual as object)
      ? shapeDifferences(value, (actual as Record<string, unknown>)[field], `${path}.${field}`)
      : [`${path}.${field}`],
  );
};

/** The fields `actual` has beyond `expected`, as `results[].asset`: arrays are compared by their first item. */
/** Every field of `value` in the notation of `extraFields`. */
const fieldPaths = (value: unknown, path = ''): string[] => {
  if (Array.isArray(value)) return value.length > 0 ? fieldPaths(value[0], `${path}[]`) : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([field, inner]) => {
    const at = path ? `${path}.${field}` : field;
    return [at, ...fieldPaths(inner, at)];
  });
};

const extraFields = (expected: unknown, actual: unknown, path = ''): string[] => {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return expected.length > 0 && actual.length > 0 ? extraFields(expected[0], actual[0], `${path}[]`) : [];
  }
  if (kindOf(expected) !== 'object' || kindOf(actual) !== 'object' || expected === null || actual === null) return [];
  const at = (field: string) => (path ? `${path}.${field}` : field);
  return Object.entries(actual as Record<string, unknown>).flatMap(([field, value]) =>
    field in (expected as object)
      ? extraFields((expected as Record<string, unknown>)[field], value, at(field))
      : [at(field)],
  );
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openApiDocument, 'contract');
const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const schemaOf = (route: Route, status: number) =>
  ajv.getSchema(
    `contract#/${pointer('paths', route.path, route.method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`,
  );

const table = await createTestTable('contract');
process.env.REPORT_IGNORED_DOMAINS = 'decen-masters.com';
const server = createGateway();
let origin = '';
const runs = BASE_PATHS.flatMap((base) => CASES.map((example) => ({ base, example })));
const REPORTER_KEY = 'contract-reporter-key-0123456789';
/** Examples about the shared report's content, asked by the organization that reported it: another sees no report. */
const ASKED_BY_REPORTER = new Set(['asset-details/reported', 'search-asset/blockedBy', 'search-reports/byContents']);
/** Examples about the organization `acme` by its slug, asked with its key. */
const ASKED_BY_DOCUMENTED = new Set(['get-user-organization/published']);
/**
 * A dispute is one per email and content, whichever organization files it: the replay under the
 * second base path writes the example's email with a subaddress (`owner+api@…`).
 */
const bodyUnder = (base: string, example: Case): unknown => {
  const body = example.body as { email?: unknown } | undefined;
  if (base === BASE_PATHS[0] || example.route.name !== 'create-dispute' || typeof body?.email !== 'string') {
    return example.body;
  }
  return { ...body, email: body.email.replace('@', '+api@') };
};
const keyFor = (id: string, index: number) =>
  ASKED_BY_REPORTER.has(id) ? REPORTER_KEY : ASKED_BY_DOCUMENTED.has(id) ? DOCUMENTED_KEY : keyOf(index);
const keyOf = (index: number) => `contract-key-${String(index).padStart(4, '0')}-0123456789`;

// Seeding an organization per replay takes long on a loaded machine: the hook waits for it.
beforeAll(async () => {
  await seed(
    table.db,
    table.tableName,
    mergeFixtures([
      ...runs.map((_, index) => exampleOrganization(`contract-${index}`, keyOf(index))),
      sharedVerdicts(REPORTER_KEY),
      documentedOrganization(DOCUMENTED_KEY),
    ]),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The changelog shows a change once it has settled (a few seconds): wait until the seeded ones show.
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetch(`${origin}/v2/asset/changelog`, {
      method: 'POST',
      headers: { 'x-api-key': DOCUMENTED_KEY },
      body: JSON.stringify({ type: 'URL' }),
    });
    const { changes } = (await response.json()) as { changes?: unknown[] };
    if ((changes?.length ?? 0) > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 300_000);
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the known divergences', () => {
  it('name no divergence that is not an example', () => {
    expect([...KNOWN_DIVERGENCES].filter((id) => !CASES.some((example) => example.id === id))).toEqual([]);
  });
});

describe.each(BASE_PATHS)('the examples replayed under %s', (base) => {
  for (const example of CASES) {
    const index = runs.findIndex((run) => run.base === base && run.example === example);
    const title = `${example.route.method} ${example.path} (${example.name}: ${example.summary}) answers ${example.status} as documented`;
    const test = KNOWN_DIVERGENCES.has(example.id) ? it.fails : it;
    test(title, async () => {
      const query = example.query.size > 0 ? `?${example.query}` : '';

      const response = await fetch(`${origin}${base}${example.path}${query}`, {
        method: example.route.method,
        headers: example.withoutKey ? {} : { 'x-api-key': keyFor(example.id, index) },
        body: example.body === undefined ? undefined : JSON.stringify(bodyUnder(base, example)),
      });
      const text = await response.text();
      const body: unknown = response.headers.get('content-type')?.startsWith('application/json')
        ? JSON.parse(text)
        : text;

      const documented = schemaOf(example.route, example.status);
      expect(documented?.(example.response) && [], ajv.errorsText(documented?.errors)).toEqual([]);
      expect({ status: response.status, body }).toMatchObject({ status: example.status });
      const headers = Object.fromEntries(response.headers.entries());
      assertDocumented(example.route, response.status, body, headerOf(headers));
      expect(shapeDifferences(example.response, body)).toEqual([]);
      // A success may answer more than the page shows only where the description says so.
      const extra = example.status < 300 ? extraFields(example.response, body) : [];
      const declared = operationOf(example.route)?.['x-extra-fields'] ?? [];
      const undeclared = extra.filter((field) => !declared.includes(field));
      expect(undeclared, 'fields beyond the published example, not listed in x-extra-fields').toEqual([]);
      if (example.status < 300) {
        const answered = fieldPaths(body);
        expect(
          declared.filter((field) => !answered.includes(field)),
          'x-extra-fields the answer does not have',
        ).toEqual([]);
      }
      if (example.status >= 400) {
        const { code, message } = example.response as { code: string; message: string };
        expect(body).toMatchObject({ code, message });
      }
    });
  }
});

describe('the single examples of the description', () => {
  it.each(DOCUMENTED.map((example) => [example.route.name, example] as const))(
    '%s: the example request and answer are in their schemas',
    (_, { route, status, body, response }) => {
      const answer = schemaOf(route, status);
      const operation = (openApiDocument.paths[route.path] as Record<string, Operation>)[route.method.toLowerCase()];
      const request =
        body === undefined
          ? undefined
          : ajv.getSchema(
              `contract#/${pointer('paths', route.path, route.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`,
            );

      if (response !== undefined) expect(answer?.(response), ajv.errorsText(answer?.errors)).toBe(true);
      if (operation?.requestBody && body !== undefined)
        expect(request?.(body), ajv.errorsText(request?.errors)).toBe(true);
    },
  );

  describe.each(BASE_PATHS)('replayed under %s', (base) => {
    const reads = DOCUMENTED.filter(
      ({ route }) => route.access === 'read' && !route.path.includes('{') && !NOT_REPLAYED.has(route.name),
    );
    it.each(reads.map((example) => [example.route.name, example] as const))(
      '%s answers the documented status, as described',
      async (_, { route, status, body }) => {
        const response = await fetch(`${origin}${base}${route.path}`, {
          method: route.method,
          headers: { 'x-api-key': DOCUMENTED_KEY },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const answer: unknown = await response.json();

        expect({ status: response.status, answer }).toMatchObject({ status });
        assertDocumented(route, response.status, answer, headerOf(Object.fromEntries(response.headers.entries())));
      },
    );
  });
});
