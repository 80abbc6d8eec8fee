import * as v from 'valibot';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type CheckerOptions, createChecker } from '../../shared/domain/check/index.ts';
import { type SearchDeps, searchAsset } from '../../shared/domain/lookups/search.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, nullable } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object(
    {
      content: nullable(v.pipe(boundedText('content', 1, 4096), v.trim(), v.nonEmpty('content must not be empty'))),
      assetId: nullable(
        v.pipe(
          v.number('assetId must be a positive integer'),
          v.safeInteger('assetId must be a positive integer'),
          v.minValue(1, 'assetId must be a positive integer'),
        ),
      ),
    },
    'Request body must be an object with content or assetId',
  ),
};

type Deps = Omit<SearchDeps, 'checker'> & Omit<CheckerOptions, 'indexBudgetMs' | 'timer'> & { keys: KeyResolver };

export const createHandler = ({ keys, index, sources, ...deps }: Deps) => {
  const checker = createChecker({ timer: systemTimer, index, sources });
  return apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await searchAsset({ ...deps, checker }, auth, body)),
  );
};

export const handler = createHandler({
  keys: runtime.keys(),
  index: runtime.verdicts(),
  sources: runtime.externalSources(),
  verdicts: runtime.verdictEntries(),
  lists: runtime.lists(),
  store: runtime.activity(),
  directory: runtime.directory(),
});
