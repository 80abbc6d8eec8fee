import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { TAXII_MEDIA_TYPE } from '../../shared/domain/taxii/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { taxiiJson, taxiiRoute } from '../../shared/http/taxii.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {};
/** API Gateway's payload limit for a Lambda integration. */
const MAX_CONTENT_LENGTH = 6 * 1024 * 1024;

export const createHandler = ({ keys }: { keys: KeyResolver }) =>
  apiHandler({ request, keys, ...taxiiRoute('read') }, async () =>
    taxiiJson(200, {
      title: 'Asset Protection Service indicators',
      description: 'One blocked, one allowed and one submissions collection per organization.',
      versions: [TAXII_MEDIA_TYPE],
      max_content_length: MAX_CONTENT_LENGTH,
    }),
  );

export const handler = createHandler({ keys: runtime.keys() });
