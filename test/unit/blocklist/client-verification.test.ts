import { beforeEach, describe, expect, it } from 'vitest';
import { BlocklistClient } from '../../../shared/blocklist-client/client.ts';
import { encodeArtifact, sortedUnique, tokenOf } from '../../../shared/domain/blocklist/artifact.ts';
import { MANIFEST, type ManifestIssuer, manifestIssuer, sha256Hex } from '../../../shared/domain/blocklist/manifest.ts';
import {
  newSigningKey,
  publishedKeys,
  rotateKeys,
  SIGNING_KEYS,
  type SigningKeySet,
} from '../../../shared/domain/blocklist/signing-keys.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const BASE = 'https://blocklist.test/v2';
const HOUR = 3_600_000;

/**
 * A blocklist service in memory: versions of a snapshot and a recent artifact, each answer signed
 * by the manifest issuer the service uses, and the hooks a test needs to tamper with what is served.
 */
const service = async () => {
  let now = Date.now();
  let keys: SigningKeySet = { keys: [await newSigningKey(now - 2 * SIGNING_KEYS.leadMs)] };
  const artifacts = new Map<string, Uint8Array>();
  const store = (bytes: Uint8Array) => {
    const token = tokenOf(bytes);
    artifacts.set(token, bytes);
    return { token, bytes: bytes.length, sha256: sha256Hex(bytes) };
  };
  const snapshot = store(
    encodeArtifact({ kind: 'snapshot', algoVersion: 1, prefixes: sortedUnique([1, 2, 3, 0x10000, 0x20000]) }),
  );
  let issue: ManifestIssuer = manifestIssuer({ keys: async () => keys, now: () => now });
  let version = { version: '1795255200000', recent: store(encodeArtifact(recentOf([], []))) };
  const hooks: {
    /** Rewrites a version answer as served. */
    answer?: (body: Record<string, unknown>) => Record<string, unknown>;
    /** Rewrites artifact bytes as served. */
    artifact?: (bytes: Uint8Array) => Uint8Array;
    /** Runs once a version answer is sent, before the client asks for anything else. */
    afterVersion?: () => Promise<void>;
  } = {};

  const fetch = (async (input: string | URL | Request) => {
    const url = String(input);
    if (url === `${BASE}/asset/blocklist/keys`) return Response.json(publishedKeys(keys, now));
    if (url === `${BASE}/asset/blocklist/version`) {
      const ref = ({ token, bytes }: { token: string; bytes: number }, count: number) => ({
        token,
        count,
        url: `${BASE}/asset/blocklist/artifacts/${token}`,
        bytes,
      });
      const manifest = await issue({
        algoVersion: 1,
        version: version.version,
        artifacts: [snapshot, version.recent].map(({ token, sha256, bytes }) => ({ token, sha256, bytes })),
      });
      const body = {
        algoVersion: 1,
        version: version.version,
        updatedAt: new Date(now).toISOString(),
        entries: 5,
        snapshot: ref(snapshot, 5),
        recent: ref(version.recent, 1),
        manifest,
      };
      const answer = Response.json(hooks.answer?.(body) ?? body);
      await hooks.afterVersion?.();
      return answer;
    }
    const bytes = artifacts.get(url.slice(url.lastIndexOf('/') + 1));
    if (bytes === undefined) return new Response('{}', { status: 404 });
    return new Response(hooks.artifact?.(bytes) ?? bytes, { status: 200 });
  }) as typeof globalThis.fetch;

  return {
    hooks,
    fetch,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    /** A later version of the blocklist: `added` prefixes on top of the snapshot. */
    publish: (name: string, added: number[]) => {
      version = { version: name, recent: store(encodeArtifact(recentOf(added, []))) };
    },
    rotate: async () => {
      keys = (await rotateKeys(keys, now)).set;
    },
    /** Signs with a key of its own that the key set does not list. */
    signWithUnlistedKey: async () => {
      const unlisted: SigningKeySet = { keys: [await newSigningKey(now - 2 * SIGNING_KEYS.leadMs)] };
      issue = manifestIssuer({ keys: async () => unlisted, now: () => now });
    },
    kids: () => keys.keys.map((key) => key.kid),
  };
};

const recentOf = (added: number[], removed: number[]) => ({
  kind: 'recent' as const,
  algoVersion: 1,
  added: sortedUnique(added),
  removed: sortedUnique(removed),
});

type Service = Awaited<ReturnType<typeof service>>;
let served: Service;
let client: BlocklistClient;

beforeEach(async () => {
  served = await service();
  client = new BlocklistClient({ suffixes, baseUrl: BASE, apiKey: 'key', fetch: served.fetch, now: served.now });
});

/** The client's state as a wallet would rely on it: what it holds and the manifest it trusted. */
const stateOf = (of: BlocklistClient) => ({ size: of.size, version: of.trusted?.version, kid: of.trusted?.kid });

describe('the reference client verifies the signed manifest before it uses anything', () => {
  it('accepts a version signed by a listed key, and says which key and version it trusted', async () => {
    const result = await client.sync();

    expect(result).toEqual({ changed: true });
    expect(stateOf(client)).toEqual({ size: 5, version: '1795255200000', kid: served.kids()[0] });
  });

  it('refuses an artifact whose bytes differ from the manifest, keeping the last good state', async () => {
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255300000', [0x30000]);
    served.hooks.artifact = (bytes) => {
      const tampered = Uint8Array.from(bytes);
      tampered[tampered.length - 5] = (tampered[tampered.length - 5] as number) ^ 0xff;
      return tampered;
    };

    const result = await client.sync();

    expect(result).toEqual({
      changed: false,
      refused: expect.stringMatching(/does not match the manifest's SHA-256$/),
    });
    expect(stateOf(client)).toEqual(good);
  });

  it('refuses an artifact of another size than the manifest says', async () => {
    served.hooks.artifact = (bytes) => Uint8Array.from([...bytes, 0]);

    const result = await client.sync();

    expect(result.refused).toMatch(/^artifact [0-9a-f]{32} is \d+ bytes, the manifest says \d+$/);
    expect(stateOf(client)).toEqual({ size: 0, version: undefined, kid: undefined });
  });

  it('refuses a manifest whose payload was altered after signing, keeping the last good state', async () => {
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255300000', [0x30000]);
    served.hooks.answer = (body) => {
      const [header, payload, signature] = String(body.manifest).split('.');
      const altered = JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8'));
      altered.expiresAt = new Date(served.now() + 20 * 24 * HOUR).toISOString();
      return {
        ...body,
        manifest: [header, Buffer.from(JSON.stringify(altered)).toString('base64url'), signature].join('.'),
      };
    };

    const result = await client.sync();

    expect(result).toEqual({ changed: false, refused: `manifest signature does not verify with key ${good.kid}` });
    expect(stateOf(client)).toEqual(good);
  });

  it('refuses an answer whose artifacts are not the ones its manifest vouches for', async () => {
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255300000', [0x30000]);
    const signed = (await (await served.fetch(`${BASE}/asset/blocklist/version`)).json()) as Record<string, unknown>;
    served.publish('1795255300000', [0x40000]);
    served.hooks.answer = (body) => ({ ...body, manifest: signed.manifest });

    const result = await client.sync();

    expect(result.refused).toMatch(/^artifact [0-9a-f]{32} is not in the manifest$/);
    expect(stateOf(client)).toEqual(good);
  });

  it('refuses a manifest signed by a key the key set does not list, keeping the last good state', async () => {
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255300000', [0x30000]);
    await served.signWithUnlistedKey();

    const result = await client.sync();

    expect(result).toEqual({ changed: false, refused: expect.stringMatching(/^manifest signed by unknown key \S+$/) });
    expect(stateOf(client)).toEqual(good);
  });

  it('refuses an expired manifest, keeping the last good state', async () => {
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255300000', [0x30000]);
    const stale = (await (await served.fetch(`${BASE}/asset/blocklist/version`)).json()) as Record<string, unknown>;
    served.hooks.answer = () => stale;
    served.advance(MANIFEST.lifetimeMs + 1);

    const result = await client.sync();

    expect(result).toEqual({ changed: false, refused: expect.stringMatching(/^manifest expired at \S+Z$/) });
    expect(stateOf(client)).toEqual(good);
  });

  it('refuses a version lower than the last one it accepted, though signed and current', async () => {
    served.publish('1795255300000', [0x30000]);
    await client.sync();
    const good = stateOf(client);
    served.publish('1795255200000', []);

    const result = await client.sync();

    expect(result).toEqual({
      changed: false,
      refused: 'manifest version 1795255200000 is older than 1795255300000 (rollback)',
    });
    expect(stateOf(client)).toEqual(good);
  });

  it('accepts a manifest signed again after 12 h though nothing changed, and the next one once the last lapsed', async () => {
    await client.sync();
    served.advance(MANIFEST.lifetimeMs - MANIFEST.renewWithinMs + 1);

    const renewed = await client.sync();
    served.advance(MANIFEST.renewWithinMs);
    const later = await client.sync();

    expect([renewed, later]).toEqual([{ changed: false }, { changed: false }]);
  });
});

describe('a key rotation while a client syncs', () => {
  it('refuses nothing: the next key is listed before it signs, and the previous one stays listed', async () => {
    await client.sync();
    const [first] = served.kids();
    await served.rotate();
    const [, next] = served.kids();

    const beforeSwitch = await client.sync();
    served.advance(SIGNING_KEYS.leadMs);
    served.publish('1795255300000', [0x30000]);
    const afterSwitch = await client.sync();
    const fresh = new BlocklistClient({ suffixes, baseUrl: BASE, apiKey: 'key', fetch: served.fetch, now: served.now });
    served.publish('1795255400000', [0x40000]);
    served.hooks.afterVersion = async () => {
      served.hooks.afterVersion = undefined;
      await served.rotate();
      served.advance(SIGNING_KEYS.leadMs);
    };
    const midRotation = await fresh.sync();

    expect([beforeSwitch, afterSwitch, midRotation]).toEqual([
      { changed: false },
      { changed: true },
      { changed: true },
    ]);
    expect(next).not.toBe(first);
    expect(client.trusted?.kid).toBe(next);
    expect(fresh.trusted?.kid).toBe(next);
  });

  it('drops the previous key from the set a week after it stopped signing', async () => {
    const [first] = served.kids();
    await served.rotate();
    served.advance(SIGNING_KEYS.leadMs + SIGNING_KEYS.keepMs - 1);
    const listed = (await (await served.fetch(`${BASE}/asset/blocklist/keys`)).json()) as { keys: { kid: string }[] };
    served.advance(1);
    const later = (await (await served.fetch(`${BASE}/asset/blocklist/keys`)).json()) as { keys: { kid: string }[] };

    expect(listed.keys.map((key) => key.kid)).toContain(first);
    expect(later.keys.map((key) => key.kid)).not.toContain(first);
    expect(later.keys).toHaveLength(1);
  });
});
