import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { TaxiiStore } from '../../shared/domain/taxii/index.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  pathParameters: v.object({ statusId: v.pipe(v.string(), v.uuid('statusId must be a status id (a UUID)')) }),
};

export const createHandler = ({ keys, store }: { keys: KeyResolver; store: TaxiiStore }) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async ({ auth, pathParameters }) => {
    const status = await store.findStatus(auth.orgId, pathParameters.statusId);
    if (status === undefined) throw new NotFoundError('Status not found');
    return taxiiJson(200, status);
  });

export const handler = createHandler({ keys: runtime.keys(), store: runtime.taxii() });
