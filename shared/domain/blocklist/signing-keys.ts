import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import * as v from 'valibot';

/** A public key as the JWK Set answers it (RFC 7517, RFC 8037). */
export type PublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig' };
export type JwkSet = { keys: PublicJwk[] };

const publicJwkSchema = v.object({
  kty: v.literal('OKP'),
  crv: v.literal('Ed25519'),
  x: v.string(),
  kid: v.string(),
  use: v.literal('sig'),
});
const keySetSchema = v.object({
  keys: v.array(
    v.object({
      kid: v.string(),
      privateJwk: v.looseObject({ kty: v.literal('OKP'), crv: v.literal('Ed25519'), x: v.string(), d: v.string() }),
      publicJwk: publicJwkSchema,
      createdAt: v.pipe(v.string(), v.isoTimestamp()),
      retiredAt: v.optional(v.pipe(v.string(), v.isoTimestamp())),
    }),
  ),
});

/** The signing keys as the runtime secret keeps them; `retiredAt` is when a key stopped (or stops) signing. */
export type SigningKeySet = v.InferOutput<typeof keySetSchema>;
export type SigningKey = SigningKeySet['keys'][number];

/** A key set as stored; anything else is refused whole, so a damaged secret never signs. */
export const parseKeySet = (text: string): SigningKeySet => {
  const parsed = v.safeParse(keySetSchema, JSON.parse(text));
  if (!parsed.success) throw new Error(`Not a blocklist signing key set: ${v.summarize(parsed.issues)}`);
  return parsed.output;
};

export const SIGNING_KEYS = {
  /**
   * A new key is published this long before it signs: longer than the signer's secret cache (5 min)
   * plus the key set's `Cache-Control` (5 min), so every client can hold a key before it meets it.
   */
  leadMs: 15 * 60_000,
  /** A key that stopped signing stays published this long, beyond the life of any manifest it signed. */
  keepMs: 7 * 86_400_000,
} as const;

export interface SigningKeyStore {
  load(): Promise<SigningKeySet>;
  save(set: SigningKeySet): Promise<void>;
}

/** A fresh Ed25519 key pair; its id is its RFC 7638 thumbprint. */
export const newSigningKey = async (now: number): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: exported.x as string, kid, use: 'sig' };
  const privateJwk = (await exportJWK(privateKey)) as JWK & { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
  return { kid, privateJwk, publicJwk, createdAt: new Date(now).toISOString() };
};

/** The key that signs at `now`: the newest one published at least the lead time ago, else (a first key) the oldest. */
export const signingKeyOf = (set: SigningKeySet, now: number): SigningKey | undefined => {
  const ready = set.keys.filter((key) => Date.parse(key.createdAt) <= now - SIGNING_KEYS.leadMs);
  return ready.at(-1) ?? set.keys[0];
};

const stillPublished = (key: SigningKey, now: number): boolean =>
  key.retiredAt === undefined || Date.parse(key.retiredAt) + SIGNING_KEYS.keepMs > now;

/** The JWK Set clients verify with: the signing key, the next one during a rotation, and the previous ones for a week. */
export const publishedKeys = (set: SigningKeySet, now: number): JwkSet => ({
  keys: set.keys.filter((key) => stillPublished(key, now)).map((key) => key.publicJwk),
});

/**
 * A rotation: a new key, published now, that signs once the lead time has passed; the keys before
 * it stop signing then, and keys that stopped over a week ago are dropped.
 */
export const rotateKeys = async (
  set: SigningKeySet,
  now: number,
): Promise<{ set: SigningKeySet; next: SigningKey; signsFrom: string }> => {
  const next = await newSigningKey(now);
  const signsFrom = set.keys.length === 0 ? next.createdAt : new Date(now + SIGNING_KEYS.leadMs).toISOString();
  const kept = set.keys
    .filter((key) => stillPublished(key, now))
    .map((key) => (key.retiredAt === undefined ? { ...key, retiredAt: signsFrom } : key));
  return { set: { keys: [...kept, next] }, next, signsFrom };
};
