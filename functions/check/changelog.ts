import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { Timer } from '../../shared/domain/check/index.ts';
import type { ChangeFeed } from '../../shared/domain/verdict-feed/index.ts';
import { changelogReader } from '../../shared/domain/verdict-feed/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { changelogBody } from '../../shared/http/verdict-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: changelogBody };
type Deps = { keys: KeyResolver; feed: ChangeFeed; now: () => number; timer: Timer };

export const createHandler = ({ keys, feed, now, timer }: Deps) => {
  const readChangelog = changelogReader(feed, timer);
  return apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth, body }) => {
    const caller = auth.kind === 'organization' ? `org:${auth.orgId}` : `user:${auth.userId}`;
    const query = { ...body, perPage: body.per_page, nextPage: body.next_page };
    return json(200, await readChangelog(caller, query, now()));
  });
};

export const handler = createHandler({
  keys: runtime.keys(),
  feed: runtime.verdictLog(),
  now: runtime.now,
  timer: runtime.timer,
});
