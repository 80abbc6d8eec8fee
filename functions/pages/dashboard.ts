import { pageHandler } from '../../shared/http/static-files.ts';
import { CONTENT_SECURITY_POLICY, PAGES } from './files.ts';

/** The metrics dashboard: a static page that calls `GET /v2/organization/metrics` with the key the user pastes. */
export const handler = pageHandler(PAGES.dashboard, CONTENT_SECURITY_POLICY.dashboard);
