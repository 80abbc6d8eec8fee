import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CursorKeySource } from '../domain/cursor.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { underFailurePolicy } from './client.ts';

type Options = {
  client?: SecretsManagerClient;
  /** How long a fetched key set is used before it is fetched again. */
  maxAgeSeconds?: number;
  /** Refreshes asked for by unknown key versions bypass the cache at most this often, so forged tokens cannot drive Secrets Manager calls. */
  minRefreshMs?: number;
  now?: () => number;
};

/**
 * The cursor key set from Secrets Manager, fetched on first use and cached. The Secrets Manager
 * client and the Powertools provider load with that first fetch, not at cold start: the request
 * that first seals or opens a cursor pays for them, with the fetch it makes anyway. The client
 * is under the failure policy; Powertools wraps every failed fetch in its GetParameterError, so an
 * unavailable Secrets Manager is unwrapped back to the ServiceUnavailableError (503) it was.
 */
export const secretCursorKeys = (
  secretId: string,
  { client, maxAgeSeconds = 300, minRefreshMs = 60_000, now = Date.now }: Options = {},
): CursorKeySource => {
  let provider: Promise<SecretsProvider> | undefined;
  const load = async (): Promise<SecretsProvider> => {
    const { SecretsProvider } = await import('@aws-lambda-powertools/parameters/secrets');
    const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const awsSdkV3Client =
      client ?? underFailurePolicy('cursor key store', (transport) => new SecretsManagerClient(transport));
    return new SecretsProvider({ awsSdkV3Client });
  };
  let lastForced = Number.NEGATIVE_INFINITY;
  return async ({ refresh }) => {
    provider ??= load();
    const forceFetch = refresh && now() - lastForced >= minRefreshMs;
    if (forceFetch) lastForced = now();
    const value = await (await provider)
      .get(secretId, { maxAge: maxAgeSeconds, forceFetch })
      .catch((error: unknown) => {
        throw error instanceof Error && error.cause instanceof ServiceUnavailableError ? error.cause : error;
      });
    if (typeof value !== 'string') throw new Error(`Secret ${secretId} holds no string`);
    return value;
  };
};
