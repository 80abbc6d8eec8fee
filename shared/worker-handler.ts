import type { Context } from 'aws-lambda';
import { tracedWorker } from './tracing.ts';

/**
 * A worker's exported handler: in a traced function, in a middy chain that gives each invocation
 * its X-Ray subsegment (shared/tracing.ts); as it is where the bundle was built with tracing off.
 */
export const workerHandler = <E, R>(
  handle: (event: E, context: Context) => Promise<R>,
): ((event: E, context: Context) => Promise<R>) =>
  // Written out in full: a bundle built with tracing off drops the tracer (shared/tracing.ts).
  process.env.POWERTOOLS_TRACE_ENABLED !== 'false' ? tracedWorker(handle) : handle;
