import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { DirectoryStore } from '../../shared/domain/account/organizations.ts';
import { type CheckerOptions, createChecker } from '../../shared/domain/check/index.ts';
import type { ListStore } from '../../shared/domain/lifecycle/lists.ts';
import { assetDetails } from '../../shared/domain/lookups/lookups.ts';
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
type Deps = Omit<CheckerOptions, 'indexBudgetMs' | 'timer'> & {
  keys: KeyResolver;
  lists: ListStore;
  directory: Pick<DirectoryStore, 'findMembership'>;
  /** The stage's `reportUrlBase`; unset, the public report page of the host the request came to. */
  reportUrlBase: string | undefined;
};

export const createHandler = ({ keys, index, sources, lists, directory, reportUrlBase }: Deps) => {
  const checker = createChecker({ timer: systemTimer, index, sources });
  return apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys, deprecation }, async (event) => {
    const base = reportUrlBase ?? reportPageBase(event);
    return json(
      200,
      await assetDetails({ checker, lists, directory, reportUrlBase: base }, event.auth, event.body.content),
    );
  });
};

export const handler = createHandler({
  keys: runtime.keys(),
  index: runtime.checkIndex(),
  sources: runtime.externalSources(),
  lists: runtime.lists(),
  directory: runtime.directory(),
  reportUrlBase: config.reportUrlBase,
});
