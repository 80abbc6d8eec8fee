import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import { readChangelog } from '../../shared/domain/check/changelog.ts';
import type { ChangeFeed } from '../../shared/domain/check/verdicts.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { changelogBody } from '../../shared/http/verdict-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: changelogBody };
type Deps = { keys: KeyResolver; feed: ChangeFeed; now: () => number };

export const createHandler = ({ keys, feed, now }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ body }) =>
    json(200, await readChangelog(feed, { ...body, perPage: body.per_page, nextPage: body.next_page }, now())),
  );

export const handler = createHandler({ keys: runtime.keys(), feed: runtime.verdictLog(), now: runtime.now });
