import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { Blocklist } from '../../shared/domain/blocklist/blocklist.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { confirmBody } from '../../shared/http/blocklist-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: confirmBody };
type Deps = { keys: KeyResolver; blocklist: Pick<Blocklist, 'confirm'> };

/** The full hashes of the BLOCKED expressions under each prefix a client matched locally, of the ALLOWED ones that mask them, and what the service and each list say of every listed one. */
export const createHandler = ({ keys, blocklist }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'check', keys }, async ({ body }) =>
    json(200, { algoVersion: body.algoVersion, ...(await blocklist.confirm(body.algoVersion, body.prefixes)) }),
  );

export const handler = createHandler({ keys: runtime.keys(), blocklist: runtime.blocklistVerdicts() });
