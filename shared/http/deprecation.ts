import type middy from '@middy/core';
import type { ApiResult } from './api-event.ts';

export type Deprecation = {
  /** RFC 9745 `Deprecation`: the moment (epoch seconds) since which the endpoint is deprecated. */
  since: number;
  /** The deprecated path and its successor, both relative to the version base. */
  path: string;
  successor: string;
};

/** Marks every response, errors included, so clients on any base path learn of the successor. */
export const deprecation = <E extends { rawPath?: string }>({
  since,
  path,
  successor,
}: Deprecation): middy.MiddlewareObj<E, ApiResult> => {
  const mark: middy.MiddlewareFn<E, ApiResult> = async ({ event, response }) => {
    if (typeof response !== 'object' || response === null) return;
    const rawPath = event.rawPath ?? path;
    const base = rawPath.endsWith(path) ? rawPath.slice(0, -path.length) : '/v2';
    response.headers = {
      ...response.headers,
      Deprecation: `@${since}`,
      Link: `<${base}${successor}>; rel="successor-version"`,
    };
  };
  return { after: mark, onError: mark };
};
