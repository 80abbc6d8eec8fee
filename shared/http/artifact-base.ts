import type { ApiEvent } from './api-event.ts';

/** The blocklist version route's path after its base; the base (`/v2` or `/api/v2`) is what the request path holds before it. */
const ROUTE_PATH = '/asset/blocklist/version';

/** Where blocklist artifacts are served: the CDN in AWS, else this API under the scheme, host and base the request came in on. */
export const artifactBase = (event: ApiEvent, cdnUrl: string | undefined): string => {
  if (cdnUrl !== undefined) return `${cdnUrl.replace(/\/$/, '')}/blocklist/artifacts/`;
  const scheme = event.headers['x-forwarded-proto'] ?? 'http';
  const host = event.headers.host ?? event.requestContext.domainName;
  const base = event.rawPath.endsWith(ROUTE_PATH) ? event.rawPath.slice(0, -ROUTE_PATH.length) : '/v2';
  return `${scheme}://${host}${base}/asset/blocklist/artifacts/`;
};
