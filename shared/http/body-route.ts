import type { KeyResolver } from '../domain/account/api-keys.ts';
import type { Auth, RequestSchema, ValidatedEvent } from './api-event.ts';
import { type ApiHandlerOptions, apiHandler } from './api-handler.ts';
import { json } from './json.ts';

type BodyRequest = RequestSchema & { body: NonNullable<RequestSchema['body']> };

/**
 * The `createHandler` of a route open to any key whose answer is one domain call: 200 with what
 * `call` returns for its dependencies, the caller, the validated body and the time of the request.
 */
export const bodyRoute =
  <R extends BodyRequest, D, T>(
    options: Omit<ApiHandlerOptions<R, 'any'>, 'keys' | 'caller'>,
    call: (deps: D, caller: Auth, body: ValidatedEvent<R, Auth>['body'], now: number) => Promise<T>,
  ) =>
  ({ keys, now, ...deps }: D & { keys: KeyResolver; now: () => number }) =>
    apiHandler({ ...options, caller: 'any', keys }, async (event) => {
      // `auth` is every validated event's; TypeScript cannot see it through the generic request.
      const { auth, body } = event as unknown as { auth: Auth; body: ValidatedEvent<R, Auth>['body'] };
      return json(200, await call(deps as D, auth, body, now()));
    });
