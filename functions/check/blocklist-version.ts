import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { ArtifactRef, Blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { artifactBase } from '../../shared/http/artifact-base.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = {
  keys: KeyResolver;
  blocklist: Pick<Blocklist, 'version'>;
  /** The CDN's address in AWS; unset, artifacts are served by the API under the base the request came in on. */
  cdnUrl: string | undefined;
};

/**
 * The version of the service's verdicts, from the blocklist's copy of them, with the artifacts a
 * hash-prefix client syncs from: the snapshot, the changes since it and the external lists, each at
 * an absolute URL.
 */
export const createHandler = ({ keys, blocklist, cdnUrl }: Deps) =>
  apiHandler({ request: {}, caller: 'any', scope: 'read', rateClass: 'check', keys }, async (event) => {
    const base = artifactBase(event, cdnUrl);
    const withUrl = ({ token, count, bytes }: ArtifactRef) => ({ token, count, url: `${base}${token}`, bytes });
    const version = await blocklist.version();
    return json(200, {
      ...version,
      snapshot: withUrl(version.snapshot),
      recent: withUrl(version.recent),
      lists: withUrl(version.lists),
    });
  });

export const handler = createHandler({
  keys: runtime.keys(),
  blocklist: runtime.blocklist(),
  cdnUrl: runtime.blocklistCdnUrl(),
});
