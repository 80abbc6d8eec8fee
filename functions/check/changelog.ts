import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { readChangelog } from '../../shared/domain/check/changelog.ts';
import { type ChangeFeed, VERSION_PATTERN } from '../../shared/domain/check/verdicts.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { assetType } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

const PER_PAGE = 'per_page must be an integer between 1 and 10000';
const VERSION = 'since must be a version from GET /asset/blocklist/version or POST /asset/changelog';

export const request = {
  body: v.object(
    {
      since: v.pipe(v.string(VERSION), v.regex(VERSION_PATTERN, VERSION)),
      type: v.optional(assetType),
      per_page: v.optional(
        v.pipe(v.number(PER_PAGE), v.integer(PER_PAGE), v.minValue(1, PER_PAGE), v.maxValue(10_000, PER_PAGE)),
        1000,
      ),
      next_page: v.optional(
        v.pipe(v.string('next_page must be a string'), v.nonEmpty('next_page must not be empty'), v.maxLength(128)),
      ),
    },
    'Request body must be an object with a since version',
  ),
};
type Deps = { keys: KeyResolver; feed: ChangeFeed; now: () => number };

export const createHandler = ({ keys, feed, now }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', keys }, async ({ body }) =>
    json(
      200,
      await readChangelog(
        feed,
        { since: body.since, type: body.type, perPage: body.per_page, nextPage: body.next_page },
        now(),
      ),
    ),
  );

export const handler = createHandler({ keys: runtime.keys(), feed: runtime.verdictLog(), now: runtime.now });
