import type { MiddlewareObj } from '@middy/core';
import * as v from 'valibot';
import { BadRequestError, type Issue } from '../errors.ts';
import type { RequestSchema } from './api-event.ts';

const PARTS = ['pathParameters', 'queryStringParameters', 'body'] as const;

const toIssues = (part: string, issues: readonly v.BaseIssue<unknown>[]): Issue[] =>
  issues.map((issue) => {
    const path = v.getDotPath(issue);
    return { message: issue.message, path: path ? `${part}.${path}` : part };
  });

/** Replaces each declared part of the event with its parsed output, or throws 400 with every issue. */
export const validate = <E extends object>(request: RequestSchema): MiddlewareObj<E> => ({
  before: async ({ event }) => {
    const target = event as Record<string, unknown>;
    for (const part of PARTS) {
      const schema = request[part];
      if (!schema) continue;
      const input = part === 'body' ? target[part] : (target[part] ?? {});
      const result = v.safeParse(schema, input);
      if (!result.success) {
        const issues = toIssues(part, result.issues);
        throw new BadRequestError(issues[0]?.message ?? 'Invalid request', { issues });
      }
      target[part] = result.output;
    }
  },
});
