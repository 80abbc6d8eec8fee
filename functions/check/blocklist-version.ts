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

/** The verdicts' version, with the snapshot, recent changes and external lists a prefix client syncs, at absolute URLs. */
export const createHandler = ({ keys, blocklist, cdnUrl }: Deps) =>
  apiHandler({ request: {}, caller: 'any', scope: 'read', rateClass: 'check', keys }, async (event) => {
    const base = artifactBase(event, cdnUrl);
    const withUrl = ({ token, count, bytes }: ArtifactRef) => ({ token, count, url: `${base}${token}`, bytes });
    const version = await blocklist.version();
    const { snapshot, recent, lists } = version;
    return json(200, { ...version, snapshot: withUrl(snapshot), recent: withUrl(recent), lists: withUrl(lists) });
  });

export const handler = createHandler({
  keys: runtime.keys(),
  blocklist: runtime.blocklist(),
  cdnUrl: runtime.blocklistCdnUrl(),
});
