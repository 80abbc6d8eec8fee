import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type SearchDeps, searchAsset } from '../../shared/domain/lookups/search.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, nullable } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const POSITIVE = 'assetId must be a positive integer';
export const request = {
  body: v.object(
    {
      content: nullable(v.pipe(boundedText('content', 1, 4096), v.trim(), v.nonEmpty('content must not be empty'))),
      assetId: nullable(v.pipe(v.number(POSITIVE), v.safeInteger(POSITIVE), v.minValue(1, POSITIVE))),
    },
    'Request body must be an object with content or assetId',
  ),
};

export const createHandler = ({ keys, ...deps }: SearchDeps & { keys: KeyResolver }) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) =>
    json(200, await searchAsset(deps, auth, body)),
  );

export const handler = createHandler({
  keys: runtime.keys(),
  checker: runtime.checkerOver(runtime.verdicts()),
  verdicts: runtime.verdictEntries(),
  lists: runtime.lists(),
  store: runtime.activity(),
  directory: runtime.directory(),
  consumers: runtime.consumers(),
  suffixes: runtime.suffixes(),
});
