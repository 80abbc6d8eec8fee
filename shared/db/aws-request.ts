import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { isThrottlingError, StandardRetryStrategy } from '@smithy/core/retry';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, SdkError } from '@smithy/types';
import { config } from '../config.ts';
import { FAILURE_POLICY, isUnavailable, policy, withinCallBudget } from './client.ts';

/** Where requests go and as whom: AWS and the function's role by default; a loopback server and fixed keys in tests. */
export type AwsTarget = {
  /** `http://127.0.0.1:<port>`: every request goes there, path-style (see `AwsRequest.virtualHost`). */
  endpoint?: string;
  credentials?: AwsCredentialIdentity;
  region?: string;
};

/** What a service's requests have in common. */
export type AwsService = {
  /** Names the service in the 503's message ("The snapshot store is unavailable"). */
  dependency: string;
  /** The service in the credential scope (`s3`, `secretsmanager`), also the first label of its host name. */
  signingName: string;
  /** False for S3, whose paths are signed as sent, without a second encoding. */
  uriEscapePath: boolean;
  /** The service's error code in an answer that is not a success, if the answer names one. */
  errorCode: (answer: AwsAnswer) => string | undefined;
};

export type AwsRequest = {
  method: 'GET' | 'PUT' | 'POST';
  /** Already encoded as it is sent. */
  path: string;
  /**
   * A bucket: the first label of the host in AWS (virtual-hosted style), the first segment of the
   * path at an endpoint override (path-style).
   */
  virtualHost?: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
};

export type AwsAnswer = { statusCode: number; headers: Record<string, string>; body: Uint8Array };

/**
 * An answer that is not a success. Named after the service's error code and carrying the status
 * where the SDK's errors do, so that `isUnavailable` (client.ts) classifies it like theirs:
 * throttling and 5xx are unavailability, the rest are the caller's to translate.
 */
export class AwsServiceError extends Error {
  readonly $metadata: { httpStatusCode: number };

  constructor(code: string, statusCode: number) {
    super(`${code} (HTTP ${statusCode})`);
    this.name = code;
    this.$metadata = { httpStatusCode: statusCode };
  }
}

const transport = (service: AwsService, target: AwsTarget) => {
  const region = target.region ?? config.awsRegion;
  const endpoint = target.endpoint === undefined ? undefined : new URL(target.endpoint);
  const signer = new SignatureV4({
    service: service.signingName,
    region,
    credentials: target.credentials ?? defaultProvider(),
    sha256: Sha256,
    uriEscapePath: service.uriEscapePath,
  });
  const handler = new NodeHttpHandler(policy().transport.requestHandler);
  const retries = new StandardRetryStrategy(FAILURE_POLICY.maxAttempts);

  const build = ({ method, path, virtualHost, headers = {}, body }: AwsRequest): HttpRequest => {
    const hostname = endpoint
      ? endpoint.hostname
      : [virtualHost, service.signingName, region, 'amazonaws.com'].filter(Boolean).join('.');
    const port = endpoint?.port ? Number(endpoint.port) : undefined;
    return new HttpRequest({
      protocol: endpoint?.protocol ?? 'https:',
      hostname,
      port,
      method,
      path: endpoint && virtualHost ? `/${virtualHost}${path}` : path,
      headers: {
        ...headers,
        host: port ? `${hostname}:${port}` : hostname,
        ...(body ? { 'content-length': String(body.byteLength) } : {}),
      },
      body,
    });
  };

  const attempt = async (request: AwsRequest): Promise<AwsAnswer> => {
    const { response } = await handler.handle(new HttpRequest(await signer.sign(build(request))));
    const answer = {
      statusCode: response.statusCode,
      headers: response.headers,
      body: await streamCollector(response.body),
    };
    if (answer.statusCode >= 300) {
      throw new AwsServiceError(service.errorCode(answer) ?? `Http${answer.statusCode}`, answer.statusCode);
    }
    return answer;
  };

  /** Attempts with the SDK's backoff and retry quota, as many as the policy allows, while the dependency is unavailable. */
  return async (request: AwsRequest): Promise<AwsAnswer> => {
    let token = await retries.acquireInitialRetryToken(service.signingName);
    for (;;) {
      try {
        const answer = await attempt(request);
        retries.recordSuccess(token);
        return answer;
      } catch (error) {
        if (!(error instanceof Error) || !isUnavailable(error)) throw error;
        const errorType = isThrottlingError(error as SdkError) ? 'THROTTLING' : 'TRANSIENT';
        token = await retries.refreshRetryTokenForRetry(token, { errorType }).catch(() => {
          throw error;
        });
      }
    }
  };
};

/**
 * Sends SigV4-signed requests to one AWS service, built from the parts the DynamoDB client puts in
 * every bundle anyway (signer, HTTP handler, credential chain, retry strategy) instead of the
 * service's own SDK client. The calls follow the failure policy of client.ts: its timeouts per
 * attempt, its attempts, its budget, and a ServiceUnavailableError when the service is not serving.
 * Nothing is built before the first request.
 */
export const awsService = (service: AwsService, target: AwsTarget = {}) => {
  let send: ReturnType<typeof transport> | undefined;
  return (request: AwsRequest): Promise<AwsAnswer> => {
    send ??= transport(service, target);
    const sending = send;
    return withinCallBudget(service.dependency, () => sending(request));
  };
};
