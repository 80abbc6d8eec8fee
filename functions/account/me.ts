import { currentUser, type ProfileStore } from '../../shared/domain/account/account.ts';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { emptyBody } from '../../shared/http/insights-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: emptyBody };
type Deps = { keys: KeyResolver; profiles: ProfileStore };

export const createHandler = ({ keys, profiles }: Deps) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { optional: true } },
    async ({ auth }) => json(200, await currentUser(profiles, auth)),
  );

export const handler = createHandler({ keys: runtime.keys(), profiles: runtime.profiles() });
