import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRoutes, type RouteDeclaration } from '../../../infra/openapi/document.ts';
import { unwrapSchema } from '../../fixtures/schema-fields.ts';

/** Valibot's own wording, which echoes the input: `Invalid type: Expected string but received -9007199254740992`. */
const DEFAULT_WORDING = /^Invalid \w+: (Expected|Received)/;
const PARTS = ['body', 'queryStringParameters', 'pathParameters'] as const;
/** A body's values: every JSON type, the extremes of numbers and strings among them. */
const JSON_VALUES: unknown[] = [-9007199254740992, 1.5, 0, 'text', '', true, null, {}, [], [1], { a: 1 }];
/** A query's or path's values: API Gateway passes an object of strings, any text in them. */
const TEXT_VALUES: unknown[] = ['-9007199254740992', '1.5', '0', 'text', '', 'true', 'null', '[]', '{}', '\u0000'];

type Node = ReturnType<typeof unwrapSchema>;

/** Inputs that put each wrong value in each place the schema declares, one place at a time, nested places too. */
const inputsFor = (node: Node, values: unknown[], depth = 0): unknown[] => {
  const inputs: unknown[] = [...values];
  if (depth > 3) return inputs;
  if (node.type === 'object') {
    for (const [name, field] of Object.entries(node.entries ?? {})) {
      for (const value of inputsFor(unwrapSchema(field as unknown as v.GenericSchema), values, depth + 1)) {
        inputs.push({ [name]: value });
      }
    }
  }
  if (node.type === 'array' && node.item !== undefined) {
    for (const value of inputsFor(unwrapSchema(node.item as unknown as v.GenericSchema), values, depth + 1)) {
      inputs.push([value]);
    }
  }
  return inputs;
};

let routes: RouteDeclaration[] = [];
beforeAll(async () => {
  routes = await loadRoutes();
});

describe('the request schemas of every route', () => {
  it('answer every wrong-typed field with their own message, never valibot’s wording that echoes the input', () => {
    const defaults: string[] = [];

    for (const { route, request } of routes) {
      for (const part of PARTS) {
        const schema = request[part];
        if (schema === undefined) continue;
        const node = unwrapSchema(schema);
        const inputs =
          part === 'body'
            ? inputsFor(node, JSON_VALUES)
            : Object.keys(node.entries ?? {}).flatMap((name) => TEXT_VALUES.map((value) => ({ [name]: value })));
        for (const input of inputs) {
          const result = v.safeParse(schema, input);
          for (const issue of result.issues ?? []) {
            if (DEFAULT_WORDING.test(issue.message)) {
              defaults.push(`${route.name} ${part}.${v.getDotPath(issue) ?? ''}: ${issue.message}`);
            }
          }
        }
      }
    }

    expect([...new Set(defaults)]).toEqual([]);
  });
});
