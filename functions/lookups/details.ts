import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { assetDetails, type DetailsDeps } from '../../shared/domain/lookups/lookups.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { reportPageBase } from '../../shared/http/report-links.ts';
import { checkContent } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object({ content: checkContent }, 'Request body must be an object with a content string'),
};
/** Deprecated since 2026-01-01 in favour of the asset check. */
const deprecation = { since: Date.UTC(2026, 0, 1) / 1000, path: '/asset/details', successor: '/asset/check' };
/** `reportUrlBase` is the stage's; unset, the public report page of the host the request came to. */
type Deps = Omit<DetailsDeps, 'reportUrlBase'> & { keys: KeyResolver; reportUrlBase: string | undefined };

export const createHandler = ({ keys, reportUrlBase, ...deps }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys, deprecation }, async (event) => {
    const base = reportUrlBase ?? reportPageBase(event);
    return json(200, await assetDetails({ ...deps, reportUrlBase: base }, event.auth, event.body.content));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  checker: runtime.checkerOver(runtime.checkIndex()),
  lists: runtime.lists(),
  directory: runtime.directory(),
  reportUrlBase: config.reportUrlBase,
  suffixes: runtime.suffixes(),
});
