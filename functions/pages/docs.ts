import { publicHandler } from '../../shared/http/api-handler.ts';
import { fileResponse, staticFile, withoutTrailingSlash } from '../../shared/http/static-files.ts';
import { CONTENT_SECURITY_POLICY, PAGES } from './files.ts';

const page = staticFile(PAGES.docs);

/** The API reference, rendered in the browser from `GET /v2/openapi.json`. */
export const handler = publicHandler(
  async (event) =>
    withoutTrailingSlash(event) ??
    fileResponse(page(), event.headers, {
      'content-security-policy': CONTENT_SECURITY_POLICY.docs,
      'cache-control': 'public, max-age=300',
    }),
);
