import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { timeLeft } from '../deadline.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { logger } from '../logger.ts';
import { captureClient } from '../tracing.ts';

/**
 * The failure policy of every call to a dependency. One attempt may take `requestTimeoutMs` once
 * connected; a call, retries and backoff included, gives up after `callBudgetMs`, or earlier at the
 * deadline of the HTTP request it serves (deadline.ts): however many calls a route makes in a row,
 * a stalled store gets the request a 503 with `Retry-After` by that one deadline. A function
 * (10 s by default, see infra/api-function.ts) therefore answers even when its calls stall,
 * with room for the 503 it then sends.
 */
export const FAILURE_POLICY = {
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 2500,
  maxAttempts: 3,
  callBudgetMs: 4000,
} as const;

/** Socket errors, and name lookups that failed (EAI_AGAIN) or found nothing (ENOTFOUND) for now. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_NAMES = new Set([
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  // SQS's throttling, answered with a 403.
  'RequestThrottled',
  'InternalServerError',
  'ServiceUnavailable',
  'SlowDown',
]);

type SdkError = Error & { code?: string; $metadata?: { httpStatusCode?: number } };

/** Timeouts, refused or reset connections, throttling and 5xx answers: the store is not serving us now. */
export const isUnavailable = (error: unknown): boolean => {
  if (error instanceof TransactionCanceledException) {
    const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
    return codes.includes('ThrottlingError') && !codes.includes('ConditionalCheckFailed');
  }
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as SdkError;
  return (
    UNAVAILABLE_NAMES.has(error.name) ||
    (code !== undefined && NETWORK_CODES.has(code)) ||
    ($metadata?.httpStatusCode ?? 0) >= 500
  );
};

/** A timer may fire a few milliseconds before the clock reads its due time. */
const ABORT_SLACK_MS = 5;

/**
 * Wraps every command, retries included: a call that outlives its budget (the call budget, or what
 * is left of the request's deadline if that is less, see deadline.ts), or fails because the
 * dependency is unavailable, becomes a ServiceUnavailableError (503 with `Retry-After`). A call
 * made once the request's deadline has passed fails at once. Every other error passes unchanged,
 * for the repositories to translate.
 */
const failurePolicy =
  (dependency: string, callBudgetMs: number) =>
  <A, R>(next: (args: A) => Promise<R>) =>
  async (args: A): Promise<R> => {
    const budgetMs = Math.min(callBudgetMs, timeLeft());
    const late = () => new ServiceUnavailableError(`The ${dependency} did not answer in time`);
    if (budgetMs <= 0) throw late();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), budgetMs);
    });
    try {
      return await Promise.race([next(args), deadline]);
    } catch (error) {
      // The request's deadline aborted the attempt (see `abortAtDeadline`): the same answer as the timer's.
      if (error instanceof Error && error.name === 'AbortError' && timeLeft() <= ABORT_SLACK_MS) throw late();
      if (isUnavailable(error)) {
        throw new ServiceUnavailableError(`The ${dependency} is unavailable`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

const POLICY_STEP = { step: 'initialize', priority: 'high', name: 'failurePolicy' } as const;

/**
 * Where the request handlers' own warnings go (sockets in use at capacity, requests queued): our log,
 * as JSON lines. Without a logger of its own, a handler takes the client's, which logs nothing.
 * Per-request details (`info`, `debug`) stay out of the log.
 */
const handlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (...content: unknown[]) => logger.warn(content.map(String).join(' ')),
  error: (...content: unknown[]) => logger.error(content.map(String).join(' ')),
};

/** The policy in force: the defaults, or the overrides of the local configuration. */
export const policy = () => {
  const { connectionMs, attemptMs, callBudgetMs } = config.storeTimeouts;
  return {
    callBudgetMs: callBudgetMs ?? FAILURE_POLICY.callBudgetMs,
    transport: {
      maxAttempts: FAILURE_POLICY.maxAttempts,
      requestHandler: {
        connectionTimeout: connectionMs ?? FAILURE_POLICY.connectionTimeoutMs,
        requestTimeout: attemptMs ?? FAILURE_POLICY.requestTimeoutMs,
        // Without it the SDK only logs a warning when an attempt runs out of time.
        throwOnRequestTimeout: true,
        logger: handlerLogger,
      },
    },
  };
};

/** What a client's constructor takes to follow the policy: attempts and the request handler's timeouts. */
export type PolicyTransport = ReturnType<typeof policy>['transport'];
type AwsClient = {
  middlewareStack: { add(middleware: ReturnType<typeof failurePolicy>, options: typeof POLICY_STEP): void };
};

/**
 * A client of any AWS service under the failure policy: `build` receives the transport settings
 * for its constructor, and every call the client makes runs within the budget (and, in a traced
 * function, is recorded as a subsegment: shared/tracing.ts). `dependency` names
 * the service in the 503's message ("The data store is unavailable").
 */
export const underFailurePolicy = <C extends AwsClient>(
  dependency: string,
  build: (transport: PolicyTransport) => C,
): C => {
  const { transport, callBudgetMs } = policy();
  const client = build(transport);
  client.middlewareStack.add(failurePolicy(dependency, callBudgetMs), POLICY_STEP);
  // Written out in full: a bundle built with tracing off drops the tracer (shared/tracing.ts).
  return process.env.POWERTOOLS_TRACE_ENABLED !== 'false' ? captureClient(client) : client;
};

/**
 * A call that goes on after its command has answered (an S3 object's body, read as it streams in)
 * under the same budget and translation to ServiceUnavailableError as the command itself.
 */
export const withinCallBudget = <R>(dependency: string, call: () => Promise<R>): Promise<R> =>
  failurePolicy(dependency, policy().callBudgetMs)(call)(undefined);

type SendOptions = { abortSignal?: AbortSignal };
type Send = (command: never, options?: SendOptions) => Promise<unknown>;

/**
 * Commands sent under a request's deadline carry an abort signal that fires at the deadline: the
 * attempt in flight is dropped and no retry starts, so a stalled store does not keep sockets and
 * retries busy for requests that already answered 503.
 */
const abortAtDeadline = (client: DynamoDBDocumentClient): DynamoDBDocumentClient => {
  // Looked up at each call, so a test's stub of the class's `send` (aws-sdk-client-mock) still applies.
  const send: Send = (command, options) =>
    (Object.getPrototypeOf(client) as { send: Send }).send.call(client, command, options);
  const sendByDeadline: Send = (command, options) => {
    const left = timeLeft();
    if (left === Number.POSITIVE_INFINITY || options?.abortSignal) return send(command, options);
    return send(command, { ...options, abortSignal: AbortSignal.timeout(Math.max(0, left)) });
  };
  return Object.assign(client, { send: sendByDeadline });
};

/** `endpoint` points at DynamoDB Local; in AWS it is unset and the SDK's own resolution applies. */
export const createDocumentClient = (endpoint?: string): DynamoDBDocumentClient => {
  const local = endpoint
    ? { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
  const client = underFailurePolicy('data store', (transport) => new DynamoDBClient({ ...local, ...transport }));
  return abortAtDeadline(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }));
};

/**
 * A client built by its first command instead of at cold start. Building one costs a few
 * milliseconds of CPU (its configuration, protocol and HTTP handler), which a function then pays
 * in its first invocation, just before that command's own first-use costs (credentials, signing,
 * the connection); `npm run bench` shows both the load and the first invocation.
 */
export const lazyClient = <C extends object>(build: () => C): C => {
  let client: C | undefined;
  return new Proxy({} as C, {
    get: (_, property) => {
      client ??= build();
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
};
