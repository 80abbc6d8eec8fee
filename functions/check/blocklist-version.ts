import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import type { ArtifactRef, Blocklist } from '../../shared/domain/blocklist/blocklist.ts';
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

/**
 * The version of the service's verdicts, from the blocklist's copy of them, with the artifacts a
 * hash-prefix client syncs from: the snapshot and the changes since it, each at an absolute URL.
 */
export const createHandler = ({ keys, blocklist, cdnUrl }: Deps) =>
  apiHandler({ request: {}, caller: 'any', scope: 'read', rateClass: 'check', keys }, async (event) => {
    const path = event.rawPath;
    const base =
      cdnUrl !== undefined
        ? `${cdnUrl.replace(/\/$/, '')}/blocklist/artifacts/`
        : `${event.headers['x-forwarded-proto'] ?? 'http'}://${event.headers.host ?? event.requestContext.domainName}${path.endsWith(ROUTE_PATH) ? path.slice(0, -ROUTE_PATH.length) : '/v2'}/asset/blocklist/artifacts/`;
    const withUrl = (ref: ArtifactRef) => ({
      token: ref.token,
      count: ref.count,
      url: `${base}${ref.token}`,
      bytes: ref.bytes,
    });
    const version = await blocklist.version();
    return json(200, { ...version, snapshot: withUrl(version.snapshot), recent: withUrl(version.recent) });
  });

export const handler = createHandler({
  keys: runtime.keys(),
  blocklist: runtime.blocklist(),
  cdnUrl: runtime.blocklistCdnUrl(),
});
