import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { CursorCodec } from '../../shared/domain/core/cursor.ts';
import type { ListStore } from '../../shared/domain/lifecycle/lists.ts';
import { listReports } from '../../shared/domain/lifecycle/views.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { reportsQuery } from '../../shared/http/lifecycle-list-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { queryStringParameters: reportsQuery };
type Deps = { keys: KeyResolver; lists: ListStore; cursors: CursorCodec };

export const createHandler = ({ keys, lists, cursors }: Deps) =>
  apiHandler(
    { request, caller: 'organization', scope: 'read', rateClass: 'read', keys },
    async ({ auth, queryStringParameters }) =>
      json(200, await listReports(lists, cursors, auth.orgId, queryStringParameters)),
  );

export const handler = createHandler({ keys: runtime.keys(), lists: runtime.lists(), cursors: runtime.cursors() });
