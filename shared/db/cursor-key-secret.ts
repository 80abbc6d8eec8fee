import { BaseProvider } from '@aws-lambda-powertools/parameters/base';
import type { CursorKeySource } from '../domain/cursor.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { type AwsAnswer, type AwsTarget, awsService } from './aws-request.ts';

type Options = {
  /** How long a fetched key set is used before it is fetched again. */
  maxAgeSeconds?: number;
  /** Refreshes asked for by unknown key versions bypass the cache at most this often, so forged tokens cannot drive Secrets Manager calls. */
  minRefreshMs?: number;
  now?: () => number;
  target?: AwsTarget;
};

/** A JSON 1.1 error's code: `__type` (or the header), without its namespace (`…#`) or message (`:…`). */
const jsonErrorCode = ({ headers, body }: AwsAnswer): string | undefined => {
  let type = headers['x-amzn-errortype'];
  try {
    type = (JSON.parse(Buffer.from(body).toString('utf8')) as { __type?: string }).__type ?? type;
  } catch {
    // Not JSON (a proxy's or load balancer's page): the header, if any, names the error.
  }
  return type?.split('#').pop()?.split(':')[0];
};

/** Secrets Manager's GetSecretValue (JSON 1.1 protocol) behind Powertools' cache (BaseProvider). */
class SecretStringProvider extends BaseProvider {
  private readonly send: ReturnType<typeof awsService>;

  constructor(target: AwsTarget | undefined) {
    super({});
    this.send = awsService(
      { dependency: 'cursor key store', signingName: 'secretsmanager', uriEscapePath: true, errorCode: jsonErrorCode },
      target,
    );
  }

  protected async _get(secretId: string): Promise<string | undefined> {
    const { body } = await this.send({
      method: 'POST',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
      },
      body: Buffer.from(JSON.stringify({ SecretId: secretId })),
    });
    return (JSON.parse(Buffer.from(body).toString('utf8')) as { SecretString?: string }).SecretString;
  }

  protected _getMultiple(): Promise<undefined> {
    return Promise.reject(new Error('Secrets are read one at a time'));
  }
}

/**
 * The cursor key set from Secrets Manager, fetched on first use and cached. Powertools wraps every
 * failed fetch in its GetParameterError, so an unavailable Secrets Manager is unwrapped back to the
 * ServiceUnavailableError (503) it was.
 */
export const secretCursorKeys = (
  secretId: string,
  { maxAgeSeconds = 300, minRefreshMs = 60_000, now = Date.now, target }: Options = {},
): CursorKeySource => {
  const provider = new SecretStringProvider(target);
  let lastForced = Number.NEGATIVE_INFINITY;
  return async ({ refresh }) => {
    const forceFetch = refresh && now() - lastForced >= minRefreshMs;
    if (forceFetch) lastForced = now();
    const value = await provider.get(secretId, { maxAge: maxAgeSeconds, forceFetch }).catch((error: unknown) => {
      throw error instanceof Error && error.cause instanceof ServiceUnavailableError ? error.cause : error;
    });
    if (typeof value !== 'string') throw new Error(`Secret ${secretId} holds no string`);
    return value;
  };
};
