import type { KeyResolver } from '../../shared/domain/api-keys.ts';
import type { ReplicaStatus } from '../../shared/domain/check/replica.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = { keys: KeyResolver; verdicts: { status(): ReplicaStatus | Promise<ReplicaStatus> } };

/** The version of the service's verdicts, from the same replica the check answers from. */
export const createHandler = ({ keys, verdicts }: Deps) =>
  apiHandler({ request: {}, caller: 'any', scope: 'read', rateClass: 'check', keys }, async () =>
    json(200, await verdicts.status()),
  );

export const handler = createHandler({ keys: runtime.keys(), verdicts: runtime.checkIndex() });
