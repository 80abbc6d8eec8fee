import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { ManifestArtifact, ManifestPayload } from '../domain/blocklist/manifest.ts';

/** What the client checks a version answer against before it uses anything of it: a listed key's signature, expiry, no rollback, each artifact's SHA-256 and size. */
export type JwkSet = { keys: (JWK & { kid?: string })[] };
export type { ManifestArtifact };
/** A manifest the client verified, with the id of the key that signed it. */
export type TrustedManifest = ManifestPayload & { kid: string };

/** Why the client refused a version or an artifact: one line, said as the client's answer. */
export class RefusedError extends Error {}

/** A manifest is never valid for longer than this after it was issued. */
const MAX_LIFETIME_MS = 24 * 3_600_000;

const isArtifact = (value: unknown): value is ManifestArtifact => {
  const entry = value as Partial<ManifestArtifact> | null;
  return (
    typeof entry?.token === 'string' &&
    typeof entry.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(entry.sha256) &&
    Number.isSafeInteger(entry.bytes)
  );
};

const parsePayload = (bytes: Uint8Array): Omit<TrustedManifest, 'kid'> => {
  let payload: Partial<TrustedManifest>;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes)) as Partial<TrustedManifest>;
  } catch {
    throw new RefusedError('manifest payload is not JSON');
  }
  const { algoVersion, version, issuedAt, expiresAt, artifacts } = payload;
  if (
    typeof algoVersion !== 'number' ||
    typeof version !== 'string' ||
    typeof issuedAt !== 'string' ||
    typeof expiresAt !== 'string' ||
    Number.isNaN(Date.parse(issuedAt)) ||
    Number.isNaN(Date.parse(expiresAt)) ||
    !Array.isArray(artifacts) ||
    !artifacts.every(isArtifact)
  ) {
    throw new RefusedError('manifest payload lacks a field or has one of the wrong type');
  }
  return { algoVersion, version, issuedAt, expiresAt, artifacts };
};

/** The key id a manifest names in its header, or a refusal when it is not a compact JWS. */
export const manifestKid = (jws: unknown): string => {
  if (typeof jws !== 'string') throw new RefusedError('version answer carries no manifest');
  try {
    const { kid } = decodeProtectedHeader(jws);
    if (typeof kid === 'string') return kid;
  } catch {
    throw new RefusedError('manifest is not a compact JWS');
  }
  throw new RefusedError('manifest header names no key (kid)');
};

/**
 * The manifest, once its EdDSA signature verifies under the listed key of its `kid`, it has not
 * expired, it was not issued for longer than 24 h, and its version is not below the last accepted
 * (no rollback). Anything else is refused with the reason.
 */
export const verifyManifest = async (
  jws: unknown,
  keys: JwkSet,
  { now, lastVersion }: { now: number; lastVersion: string | undefined },
): Promise<TrustedManifest> => {
  const kid = manifestKid(jws);
  const jwk = keys.keys.find((key) => key.kid === kid);
  if (jwk === undefined) throw new RefusedError(`manifest signed by unknown key ${kid}`);
  let payload: Uint8Array;
  try {
    const key = await importJWK(jwk, 'EdDSA');
    ({ payload } = await compactVerify(jws as string, key, { algorithms: ['EdDSA'] }));
  } catch {
    throw new RefusedError(`manifest signature does not verify with key ${kid}`);
  }
  const manifest = parsePayload(payload);
  const expiresAt = Date.parse(manifest.expiresAt);
  if (expiresAt <= now) throw new RefusedError(`manifest expired at ${manifest.expiresAt}`);
  if (expiresAt - Date.parse(manifest.issuedAt) > MAX_LIFETIME_MS) {
    throw new RefusedError('manifest is valid for more than 24 h');
  }
  if (lastVersion !== undefined && manifest.version < lastVersion) {
    throw new RefusedError(`manifest version ${manifest.version} is older than ${lastVersion} (rollback)`);
  }
  return { kid, ...manifest };
};

/** The manifest's entry for an artifact the answer names; an artifact it does not vouch for is refused. */
export const entryOf = (manifest: TrustedManifest, token: string): ManifestArtifact => {
  const entry = manifest.artifacts.find((artifact) => artifact.token === token);
  if (entry === undefined) throw new RefusedError(`artifact ${token} is not in the manifest`);
  return entry;
};

/** Refuses artifact bytes whose size or SHA-256 differs from the manifest's entry. */
export const checkArtifact = (bytes: Uint8Array, entry: ManifestArtifact): void => {
  if (bytes.length !== entry.bytes) {
    throw new RefusedError(`artifact ${entry.token} is ${bytes.length} bytes, the manifest says ${entry.bytes}`);
  }
  if (createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
    throw new RefusedError(`artifact ${entry.token} does not match the manifest's SHA-256`);
  }
};
