import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { logger } from '../logger.ts';

/**
 * The failure policy of every call to a dependency. One attempt may take `requestTimeoutMs` once
 * connected; a call, retries and backoff included, gives up after `callBudgetMs`. A function
 * (10 s by default, see infra/api-function.ts) therefore answers even when its first call stalls,
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

/**
 * Wraps every command, retries included: a call that outlives the budget, or fails because the
 * dependency is unavailable, becomes a ServiceUnavailableError (503 with `Retry-After`). Every other
 * error passes unchanged, for the repositories to translate.
 */
const failurePolicy =
  (dependency: string, callBudgetMs: number) =>
  <A, R>(next: (args: A) => Promise<R>) =>
  async (args: A): Promise<R> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ServiceUnavailableError(`The ${dependency} did not answer in time`)),
        callBudgetMs,
      );
    });
    try {
      return await Promise.race([next(args), deadline]);
    } catch (error) {
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
 * for its constructor, and every call the client makes runs within the budget. `dependency` names
 * the service in the 503's message ("The data store is unavailable").
 */
export const underFailurePolicy = <C extends AwsClient>(
  dependency: string,
  build: (transport: PolicyTransport) => C,
): C => {
  const { transport, callBudgetMs } = policy();
  const client = build(transport);
  client.middlewareStack.add(failurePolicy(dependency, callBudgetMs), POLICY_STEP);
  return client;
};

/**
 * One call of a client that makes its own attempts (see aws-request.ts) under the same budget and
 * translation to ServiceUnavailableError as the SDK clients' calls.
 */
export const withinCallBudget = <R>(dependency: string, call: () => Promise<R>): Promise<R> =>
  failurePolicy(dependency, policy().callBudgetMs)(call)(undefined);

/** `endpoint` points at DynamoDB Local; in AWS it is unset and the SDK's own resolution applies. */
export const createDocumentClient = (endpoint?: string): DynamoDBDocumentClient => {
  const local = endpoint
    ? { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
  const client = underFailurePolicy('data store', (transport) => new DynamoDBClient({ ...local, ...transport }));
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
};

/**
 * A document client built by its first command instead of at cold start. Building one costs a few
 * milliseconds of CPU (its configuration, protocol and HTTP handler), which a function then pays
 * in its first invocation, just before that command's own first-use costs (credentials, signing,
 * the connection); `npm run bench` shows both the load and the first invocation.
 */
export const lazyDocumentClient = (build: () => DynamoDBDocumentClient): DynamoDBDocumentClient => {
  let client: DynamoDBDocumentClient | undefined;
  return new Proxy({} as DynamoDBDocumentClient, {
    get: (_, property) => {
      client ??= build();
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
};
