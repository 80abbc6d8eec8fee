import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseKeySet, type SigningKeyStore } from '../domain/blocklist/signing-keys.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { underFailurePolicy } from './client.ts';

type SecretOptions = {
  /** How long the signer uses a fetched key set before it fetches it again. */
  maxAgeSeconds?: number;
  /** Where Secrets Manager is asked instead of AWS (a loopback server in tests). */
  endpoint?: string;
};

/**
 * The signing keys in a Secrets Manager secret: read through Powertools' SecretsProvider (cached),
 * written by the operator's rotation. An unavailable Secrets Manager stays the 503 it was.
 */
export const secretSigningKeys = (
  secretId: string,
  { maxAgeSeconds = 300, endpoint }: SecretOptions = {},
): SigningKeyStore => {
  let client: SecretsManagerClient | undefined;
  let provider: SecretsProvider | undefined;
  const clientOf = () => {
    client ??= underFailurePolicy(
      'blocklist signing key store',
      (transport) => new SecretsManagerClient({ ...transport, ...(endpoint === undefined ? {} : { endpoint }) }),
    );
    return client;
  };
  return {
    async load() {
      provider ??= new SecretsProvider({ awsSdkV3Client: clientOf() });
      const value = await provider.get(secretId, { maxAge: maxAgeSeconds }).catch((error: unknown) => {
        throw error instanceof Error && error.cause instanceof ServiceUnavailableError ? error.cause : error;
      });
      if (typeof value !== 'string') throw new Error(`Secret ${secretId} holds no string`);
      return parseKeySet(value);
    },
    async save(set) {
      await clientOf().send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(set) }));
    },
  };
};
