import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};

/** The base the client called under (`/api/v2` or `/v2`; `/v2` at the host root), so the API root it is told is one it can reach. */
const baseOf = (rawPath: string | undefined): string => (rawPath?.startsWith('/api/v2/') ? '/api/v2' : '/v2');

export const createHandler = ({ keys }: { keys: KeyResolver }) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async ({ rawPath }) => {
    const apiRoot = `${baseOf(rawPath)}/taxii2/api/`;
    return taxiiJson(200, {
      title: 'Asset Protection Service',
      description:
        "The organization's blocked and allowed indicators, and a collection to submit indicators for review.",
      default: apiRoot,
      api_roots: [apiRoot],
    });
  });

export const handler = createHandler({ keys: runtime.keys() });
