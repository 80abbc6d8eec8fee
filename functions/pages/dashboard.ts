import { publicHandler } from '../../shared/http/api-handler.ts';
import { fileResponse, staticFile, withoutTrailingSlash } from '../../shared/http/static-files.ts';
import { CONTENT_SECURITY_POLICY, PAGES } from './files.ts';

const page = staticFile(PAGES.dashboard);

/** The metrics dashboard: a static page that calls `GET /v2/organization/metrics` with the key the user pastes. */
export const handler = publicHandler(
  async (event) =>
    withoutTrailingSlash(event) ??
    fileResponse(page(), event.headers, {
      'content-security-policy': CONTENT_SECURITY_POLICY.dashboard,
      'cache-control': 'public, max-age=300',
    }),
);
