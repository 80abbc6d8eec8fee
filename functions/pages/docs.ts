import { pageHandler } from '../../shared/http/static-files.ts';
import { CONTENT_SECURITY_POLICY, PAGES } from './files.ts';

/** The API reference, rendered in the browser from `GET /v2/openapi.json`. */
export const handler = pageHandler(PAGES.docs, CONTENT_SECURITY_POLICY.docs);
