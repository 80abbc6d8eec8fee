import type { PublishedKeySource } from '../../shared/db/blocklist-signing-keys.ts';
import { publicHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = { keys: PublishedKeySource };

/** Clients may keep the set this long; one that meets an unknown `kid` asks again (a new key is published 15 min before it signs). */
export const KEYS_CACHE_CONTROL = 'public, max-age=300';

/** The JWK Set blocklist manifests are signed with: no key, since it holds only public keys. */
export const createHandler = ({ keys }: Deps) =>
  publicHandler(async () =>
    json(200, await keys(), { 'content-type': 'application/jwk-set+json', 'cache-control': KEYS_CACHE_CONTROL }),
  );

export const handler = createHandler({ keys: runtime.blocklistKeys() });
