import { createHash } from 'node:crypto';
import { CompactSign, importJWK } from 'jose';
import { type JwkSet, publishedKeys, type SigningKeySet, signingKeyOf } from './signing-keys.ts';

/** One artifact as the manifest vouches for it: its token, and the SHA-256 and size of its bytes as served. */
export type ManifestArtifact = { token: string; sha256: string; bytes: number };
export type ManifestPayload = {
  algoVersion: number;
  version: string;
  issuedAt: string;
  expiresAt: string;
  artifacts: ManifestArtifact[];
};
export type ManifestContent = Pick<ManifestPayload, 'algoVersion' | 'version' | 'artifacts'>;

export const MANIFEST = {
  /** A manifest is valid this long after it is issued (at most 24 h). */
  lifetimeMs: 24 * 3_600_000,
  /** A manifest with less than this left is issued again at the next answer, even when nothing changed. */
  renewWithinMs: 12 * 3_600_000,
} as const;

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Signs a manifest of `content`; `undefined` when there is no signing key yet. */
export type ManifestIssuer = (content: ManifestContent) => Promise<string | undefined>;

type Options = {
  /** The signing keys (the runtime secret), read through its cache. */
  keys: () => Promise<SigningKeySet>;
  /** Makes a key set public where the key set route reads it; called before any key in it first signs. */
  publish?: (keys: JwkSet) => Promise<void>;
  now?: () => number;
};

/**
 * Issues the signed manifests of the blocklist's version answer (a compact JWS, EdDSA, header
 * `kid`). The last one is answered again while its content and key are the same and it has more
 * than `renewWithinMs` left, so a quiet blocklist still gets a fresh manifest twice a day.
 */
export const manifestIssuer = ({ keys, publish, now = Date.now }: Options): ManifestIssuer => {
  const imported = new Map<string, ReturnType<typeof importJWK>>();
  let published = '';
  let last: { content: string; kid: string; expiresAt: number; jws: string } | undefined;
  return async (content) => {
    const at = now();
    const set = await keys();
    const key = signingKeyOf(set, at);
    if (key === undefined) return undefined;
    const described = JSON.stringify(content);
    if (last?.content === described && last.kid === key.kid && last.expiresAt - at > MANIFEST.renewWithinMs) {
      return last.jws;
    }
    const jwks = JSON.stringify(publishedKeys(set, at));
    if (publish !== undefined && jwks !== published) {
      await publish(JSON.parse(jwks) as JwkSet);
      published = jwks;
    }
    let signer = imported.get(key.kid);
    if (signer === undefined) {
      signer = importJWK(key.privateJwk, 'EdDSA');
      imported.set(key.kid, signer);
    }
    const expiresAt = at + MANIFEST.lifetimeMs;
    const payload: ManifestPayload = {
      algoVersion: content.algoVersion,
      version: content.version,
      issuedAt: new Date(at).toISOString(),
      expiresAt: new Date(expiresAt).toISOString(),
      artifacts: content.artifacts,
    };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid })
      .sign(await signer);
    last = { content: described, kid: key.kid, expiresAt, jws };
    return jws;
  };
};
