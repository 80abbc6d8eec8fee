import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import { type DetectionDeps, organizationFor } from '../../shared/domain/detections/index.ts';
import { SOURCE_CATALOGUE } from '../../shared/domain/detections/source-catalogue.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { detectionSlug } from '../../shared/http/detection-schemas.ts';
import { json } from '../../shared/http/json.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = {
  queryStringParameters: v.optional(v.object({ slug: v.optional(detectionSlug) }, 'Query must be an object'), {}),
};

export const createHandler = ({ keys, directory }: Pick<DetectionDeps, 'directory'> & { keys: KeyResolver }) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys },
    async ({ auth, queryStringParameters }) => {
      const slug = queryStringParameters.slug ?? (auth.kind === 'organization' ? auth.orgId : '');
      await organizationFor(directory, auth, slug);
      return json(200, { sources: SOURCE_CATALOGUE });
    },
  );

export const handler = createHandler({ keys: runtime.keys(), directory: runtime.directory() });
