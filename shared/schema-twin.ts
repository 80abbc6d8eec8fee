import * as v from 'valibot';

/** The metadata key under which a pipe carries its JSON Schema twin. */
export const TWIN_KEY = 'jsonSchemaTwin';

/**
 * JSON Schema keywords that say what the `check` actions of the same pipe say: a JSON Schema
 * converter cannot read a function, so the API description takes these instead, and a test
 * holds each twin to its check. Place it before any `transform` of the pipe.
 */
export const jsonSchemaTwin = <TInput>(keywords: Record<string, unknown>) =>
  v.metadata<TInput, { readonly [TWIN_KEY]: Record<string, unknown> }>({ [TWIN_KEY]: keywords });
