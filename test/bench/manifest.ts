/**
 * Signed blocklist manifests (`npm run bench -- manifest`): what signing costs the version route per
 * new version (an Ed25519 JWS over the version and both artifacts' SHA-256), what verifying it costs
 * the reference client, and the bytes it adds to the version answer, beside the answer without it.
 */
import { verifyManifest } from '../../shared/blocklist-client/verify.ts';
import { manifestIssuer, sha256Hex } from '../../shared/domain/blocklist/manifest.ts';
import { newSigningKey, publishedKeys } from '../../shared/domain/blocklist/signing-keys.ts';

type Row = { name: string; value: string };

const ROUNDS = 2_000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export const benchManifest = async (): Promise<Row[]> => {
  const now = Date.now();
  const keys = { keys: [await newSigningKey(now)] };
  const issue = manifestIssuer({ keys: async () => keys, now: () => now });
  const artifact = (seed: string) => ({ token: sha256Hex(Buffer.from(seed)).slice(0, 32), bytes: 2_048_576 });
  const snapshot = { ...artifact('snapshot'), sha256: sha256Hex(Buffer.from('snapshot')) };
  const recent = { ...artifact('recent'), sha256: sha256Hex(Buffer.from('recent')) };
  const versionOf = (i: number) =>
    `${String(now + i).padStart(13, '0')}-3f1c0a9e4b2d7c65-${String(i).padStart(12, '0')}`;
  const content = (i: number) => ({ algoVersion: 1, version: versionOf(i), artifacts: [snapshot, recent] });

  await issue(content(-1));
  const signing: number[] = [];
  const signed: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    signed.push((await issue(content(i))) as string);
    signing.push((performance.now() - started) * 1000);
  }
  const cached: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await issue(content(ROUNDS - 1));
    cached.push((performance.now() - started) * 1000);
  }
  const jwks = publishedKeys(keys, now);
  const verifying: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await verifyManifest(signed[i], jwks, { now, lastVersion: undefined });
    verifying.push((performance.now() - started) * 1000);
  }

  const ref = ({ token, bytes }: { token: string; bytes: number }) => ({
    token,
    count: 1_712_000,
    url: `https://d111111abcdef8.cloudfront.net/blocklist/artifacts/${token}`,
    bytes,
  });
  const answer = {
    algoVersion: 1,
    version: versionOf(0),
    updatedAt: new Date(now).toISOString(),
    entries: 1_000_000,
    snapshot: ref(snapshot),
    recent: ref(recent),
  };
  const without = Buffer.byteLength(JSON.stringify(answer));
  const withManifest = Buffer.byteLength(JSON.stringify({ ...answer, manifest: signed[0] }));
  return [
    { name: 'sign a new version (Ed25519 JWS), µs median', value: median(signing).toFixed(1) },
    { name: 'same version answered again (manifest kept), µs median', value: median(cached).toFixed(1) },
    { name: 'client verification (key import, signature, checks), µs median', value: median(verifying).toFixed(1) },
    {
      name: 'version answer bytes without / with manifest',
      value: `${without} / ${withManifest} (+${withManifest - without} B, ×${(withManifest / without).toFixed(2)})`,
    },
  ];
};
