import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type ReviewDeps, reviewProposal } from '../../shared/domain/lifecycle/reviews.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { reviewBody } from '../../shared/http/lifecycle-schemas.ts';
import { positiveId } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  pathParameters: v.object({ proposalId: positiveId('Proposal ID must be a positive integer') }),
  body: reviewBody,
};
type Deps = Omit<ReviewDeps, 'dailyLimit'> & { keys: KeyResolver; now: () => number; dailyLimit: () => number };

export const createHandler = ({ keys, now, dailyLimit, ...stores }: Deps) =>
  apiHandler(
    { request, caller: 'organization', scope: 'write', rateClass: 'write', keys },
    async ({ auth, pathParameters, body }) => {
      const deps = { ...stores, dailyLimit: dailyLimit() };
      return json(200, await reviewProposal(deps, auth.orgId, pathParameters.proposalId, body, now()));
    },
  );

export const handler = createHandler({
  keys: runtime.keys(),
  now: runtime.now,
  dailyLimit: () => config.reviewDailyLimit,
  ...runtime.lifecycle(),
});
