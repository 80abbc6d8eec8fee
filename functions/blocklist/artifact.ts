import { ARTIFACT_CACHE_CONTROL, ARTIFACT_CONTENT_TYPE } from '../../shared/db/blocklist-artifact-store.ts';
import type { ArtifactStore } from '../../shared/domain/blocklist/blocklist.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { publicHandler } from '../../shared/http/api-handler.ts';
import { ARTIFACT_TOKEN } from '../../shared/http/blocklist-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

type Deps = { artifacts: ArtifactStore };

/**
 * A blocklist artifact by its token, as the CDN serves it in AWS: no key, and immutable, since a
 * token names one content forever; a client that holds it gets 304 for its `If-None-Match`.
 */
export const createHandler = ({ artifacts }: Deps) =>
  publicHandler(async (event) => {
    const token = event.pathParameters?.token ?? '';
    const bytes = ARTIFACT_TOKEN.test(token) ? await artifacts.get(token) : undefined;
    if (bytes === undefined) throw new NotFoundError('No blocklist artifact has this token');
    const etag = `"${token}"`;
    const headers = { etag, 'cache-control': ARTIFACT_CACHE_CONTROL };
    if (event.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) {
      return { statusCode: 304, headers, body: '' };
    }
    return {
      statusCode: 200,
      headers: { ...headers, 'content-type': ARTIFACT_CONTENT_TYPE },
      body: Buffer.from(bytes).toString('base64'),
      isBase64Encoded: true,
    };
  });

export const handler = createHandler({ artifacts: runtime.blocklistArtifacts() });
