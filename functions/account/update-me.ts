import { type ProfileStore, updateCurrentUser } from '../../shared/domain/account/account.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { profileUpdateBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: profileUpdateBody };
type Deps = { keys: KeyResolver; profiles: ProfileStore };

export const createHandler = ({ keys, profiles }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'write', rateClass: 'write', keys }, async ({ auth, body }) =>
    json(200, await updateCurrentUser(profiles, auth, body)),
  );

export const handler = createHandler({ keys: runtime.keys(), profiles: runtime.profiles() });
