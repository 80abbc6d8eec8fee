import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CursorKeySource } from '../domain/core/cursor.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { underFailurePolicy } from './client.ts';

type Options = {
  /** How long a fetched key set is used before it is fetched again. */
  maxAgeSeconds?: number;
  /** Refreshes asked for by unknown key versions bypass the cache at most this often, so forged tokens cannot drive Secrets Manager calls. */
  minRefreshMs?: number;
  now?: () => number;
  /** Where Secrets Manager is asked instead of AWS (a loopback server in tests). */
  endpoint?: string;
};

/**
 * The cursor key set from Secrets Manager (Powertools' SecretsProvider over a client under the
 * failure policy, both built by the first fetch), cached. Powertools wraps every failed fetch in its
 * GetParameterError, so an unavailable Secrets Manager is unwrapped back to the
 * ServiceUnavailableError (503) it was.
 */
export const secretCursorKeys = (
  secretId: string,
  { maxAgeSeconds = 300, minRefreshMs = 60_000, now = Date.now, endpoint }: Options = {},
): CursorKeySource => {
  let provider: SecretsProvider | undefined;
  let lastForced = Number.NEGATIVE_INFINITY;
  return async ({ refresh }) => {
    provider ??= new SecretsProvider({
      awsSdkV3Client: underFailurePolicy(
        'cursor key store',
        (transport) => new SecretsManagerClient({ ...transport, ...(endpoint === undefined ? {} : { endpoint }) }),
      ),
    });
    const forceFetch = refresh && now() - lastForced >= minRefreshMs;
    if (forceFetch) lastForced = now();
    const value = await provider.get(secretId, { maxAge: maxAgeSeconds, forceFetch }).catch((error: unknown) => {
      throw error instanceof Error && error.cause instanceof ServiceUnavailableError ? error.cause : error;
    });
    if (typeof value !== 'string') throw new Error(`Secret ${secretId} holds no string`);
    return value;
  };
};
