import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../../infra/openapi/document.ts';
import { DOCUMENT_FILE, serialize } from '../../../infra/openapi/file.ts';
import { OPERATIONS } from '../../../infra/openapi/operations.ts';
import { ROUTES } from '../../../infra/routes.ts';

type Operation = {
  summary?: string;
  description?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

const fresh = (await buildDocument()) as Document;
const operationOf = (route: (typeof ROUTES)[number]) => fresh.paths[route.path]?.[route.method.toLowerCase()];

describe('the OpenAPI description', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const api = await SwaggerParser.validate(structuredClone(fresh) as never);

    expect(fresh.openapi).toBe('3.1.0');
    expect(Object.keys(api.paths ?? {}).length).toBeGreaterThan(0);
  });

  it('has an entry in infra/openapi/operations.ts for every route of the route table', () => {
    const undescribed = ROUTES.filter(
      (route) => !OPERATIONS[route.name]?.summary || !OPERATIONS[route.name]?.description,
    );

    expect(
      undescribed.map((route) => route.name),
      'routes without a description in infra/openapi/operations.ts',
    ).toEqual([]);
  });

  it('describes every route of the route table with a summary, a description and a success response', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation?.summary).toBeTruthy();
      expect(operation?.description).toBeTruthy();
      expect(Object.keys(operation?.responses ?? {}).some((status) => status.startsWith('2'))).toBe(true);
    }
    const described = Object.values(fresh.paths).flatMap((item) => Object.keys(item)).length;
    expect(described).toBe(ROUTES.length);
  });

  it('asks for a key on every route but the public ones, and documents 401 and 500 where it does', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route) as Operation;
      if (route.public) {
        expect(operation.security, route.name).toEqual([]);
        continue;
      }
      expect(operation.security, route.name).toBeUndefined();
      expect(Object.keys(operation.responses), route.name).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });

  it('is committed as generated, so the served document is current (else run npm run openapi)', () => {
    expect(readFileSync(DOCUMENT_FILE, 'utf8'), 'functions/pages/openapi.json is stale: run npm run openapi').toBe(
      serialize(fresh),
    );
  });

  it('fails to build, naming the route, when a route has no description', async () => {
    const route = { method: 'GET', path: '/x', name: 'undescribed', entry: 'functions/pages/openapi.ts' } as const;

    await expect(buildDocument([{ ...route, area: 'pages', access: 'none', public: true }])).rejects.toThrow(
      'undescribed: no description in infra/openapi/operations.ts',
    );
  });
});
