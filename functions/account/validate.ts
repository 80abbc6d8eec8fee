import { validateKey } from '../../shared/domain/account/account.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};
type Deps = { keys: KeyResolver };

export const createHandler = ({ keys }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ auth }) =>
    json(200, validateKey(auth)),
  );

export const handler = createHandler({ keys: runtime.keys() });
