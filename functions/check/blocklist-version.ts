import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { ArtifactRef, Blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import type { ApiEvent } from '../../shared/http/api-event.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = {
  keys: KeyResolver;
  blocklist: Pick<Blocklist, 'version'>;
  /** The CDN's address in AWS; unset, artifacts are served by the API under the base the request came in on. */
  cdnUrl: string | undefined;
};

/** The route's path after its base; the base (`/v2` or `/api/v2`) is what the request path holds before it. */
const ROUTE_PATH = '/asset/blocklist/version';

/** Where artifacts are served: the CDN in AWS, else this API under the scheme, host and base the request came in on. */
const artifactBase = (event: ApiEvent, cdnUrl: string | undefined): string => {
  if (cdnUrl !== undefined) return `${cdnUrl.replace(/\/$/, '')}/blocklist/artifacts/`;
  const scheme = event.headers['x-forwarded-proto'] ?? 'http';
  const host = event.headers.host ?? event.requestContext.domainName;
  const base = event.rawPath.endsWith(ROUTE_PATH) ? event.rawPath.slice(0, -ROUTE_PATH.length) : '/v2';
  return `${scheme}://${host}${base}/asset/blocklist/artifacts/`;
};

/**
 * The version of the service's verdicts, from the blocklist's copy of them, with the artifacts a
 * hash-prefix client syncs from: the snapshot and the changes since it, each at an absolute URL.
 */
export const createHandler = ({ keys, blocklist, cdnUrl }: Deps) =>
  apiHandler({ request: {}, caller: 'any', scope: 'read', rateClass: 'check', keys }, async (event) => {
    const base = artifactBase(event, cdnUrl);
    const withUrl = ({ token, count, bytes }: ArtifactRef) => ({ token, count, url: `${base}${token}`, bytes });
    const version = await blocklist.version();
    return json(200, { ...version, snapshot: withUrl(version.snapshot), recent: withUrl(version.recent) });
  });

export const handler = createHandler({
  keys: runtime.keys(),
  blocklist: runtime.blocklist(),
  cdnUrl: runtime.blocklistCdnUrl(),
});
