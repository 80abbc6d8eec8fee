import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { config } from './config.ts';

/**
 * X-Ray segments of the functions CDK traces actively: a `## <handler>` subsegment per invocation
 * and one per AWS call (DynamoDB, S3, SQS, Secrets Manager, KMS) under it.
 *
 * Only the bundles of traced functions hold this module. The bundle of a function CDK does not
 * trace is built with `process.env.POWERTOOLS_TRACE_ENABLED` defined as `"false"` (infra/bundling.ts),
 * and every module that imports this one tests that value where it uses it, so that esbuild drops
 * the use and, the project being free of side effects, this module and the tracer with it. A module
 * that imports this one must therefore guard each use with
 * `process.env.POWERTOOLS_TRACE_ENABLED !== 'false'`, written out in full.
 *
 * Where the tracer is bundled it records only in Lambda (`AWS_EXECUTION_ENV` set) and when
 * `POWERTOOLS_TRACE_ENABLED` is not `false` at run time; elsewhere (tests, the local gateway, a
 * bundle run by hand) it is loaded but writes nothing, and logs nothing.
 */
let tracer: Tracer | undefined;

/**
 * The container's tracer, built at first use. Outgoing HTTP outside the AWS clients (webhook
 * deliveries, scans) is not captured: it goes through the egress client's own connections.
 * Responses are not added to the segments: they carry customer data, and a list can exceed a segment's size.
 */
export const containerTracer = (): Tracer => {
  tracer ??= new Tracer({ serviceName: config.serviceName, captureHTTPsRequests: false });
  return tracer;
};

/** Records each call of an AWS SDK v3 client as a subsegment of the invocation's. */
export const captureClient = <C>(client: C): C => containerTracer().captureAWSv3Client(client);

type TracingMiddleware = ReturnType<typeof captureLambdaHandler>;

/**
 * The handler's subsegment, annotated with the cold start and the service. An error the chain
 * turned into a response below 500 (a client's mistake) closes it as a success; a 5xx or an
 * error thrown out of the chain marks it as a fault.
 */
export const tracingMiddleware = (target: Tracer = containerTracer()): TracingMiddleware => {
  const traced = captureLambdaHandler(target, { captureResponse: false });
  return {
    before: traced.before,
    after: traced.after,
    onError: (request) => {
      const status = (request.response as { statusCode?: unknown } | undefined)?.statusCode;
      return typeof status === 'number' && status < 500 ? traced.after?.(request) : traced.onError?.(request);
    },
  };
};

/** A worker's handler in a middy chain that traces it. */
export const tracedWorker = <E, R>(handle: (event: E, context: Context) => Promise<R>) =>
  middy<E, R, Error, Context>().use(tracingMiddleware()).handler(handle);
