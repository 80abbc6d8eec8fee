import * as v from 'valibot';
import { systemTimer } from '../../shared/db/adapters/timer.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type CheckerOptions, createChecker } from '../../shared/domain/check/index.ts';
import type { CheckSampler } from '../../shared/domain/detections/check-samples.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { checkContent } from '../../shared/http/schemas.ts';
import { recordVerdict } from '../../shared/metrics.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  body: v.object({ content: checkContent }, 'Request body must be an object with a content string'),
};
/** `samples`: unknown content sampled for the ASSET_CHECK detection source, off the request's path. */
type Deps = Pick<CheckerOptions, 'index' | 'sources' | 'suffixes'> & { keys: KeyResolver; samples?: CheckSampler };

export const createHandler = ({ keys, index, sources, suffixes, samples }: Deps) => {
  const checker = createChecker({ timer: systemTimer, index, sources, suffixes });
  return apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'check', keys }, async ({ body }) => {
    const result = await checker.check(body.content);
    recordVerdict(result);
    samples?.offer(body.content, result.status);
    return json(200, result);
  });
};

export const handler = createHandler({
  keys: runtime.keys(),
  index: runtime.checkIndex(),
  sources: runtime.externalSources(),
  suffixes: runtime.suffixes(),
  samples: runtime.checkSamples(),
});
