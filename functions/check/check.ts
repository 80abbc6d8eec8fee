import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import shippedEthConfig from 'eth-phishing-detect/src/config.json' with { type: 'json' };
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { documentClient } from '../../shared/db/default-client.ts';
import { fileSnapshotStore, s3SnapshotStore } from '../../shared/db/list-snapshot-store.ts';
import { createChecker } from '../../shared/domain/check/engine.ts';
import { loadExternalSources, refreshingSources } from '../../shared/domain/check/lists.ts';
import type { ApiResult, Auth, ValidatedEvent } from '../../shared/http/api-event.ts';
import { apiKeyAuth } from '../../shared/http/api-key-auth.ts';
import { errorResponse } from '../../shared/http/error-response.ts';
import { json } from '../../shared/http/json.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { MAX_CONTENT_LENGTH } from '../../shared/http/schemas.ts';
import { validate } from '../../shared/http/validate.ts';
import { logger } from '../../shared/logger.ts';

const request = {
  body: v.object(
    {
      content: v.pipe(
        v.optional(v.string('content must be a string'), ''),
        v.trim(),
        v.nonEmpty('content is required'),
        v.maxLength(MAX_CONTENT_LENGTH, `content must be at most ${MAX_CONTENT_LENGTH} characters`),
      ),
    },
    'Request body must be an object with a content string',
  ),
};

const snapshots = config.listsBucket
  ? s3SnapshotStore(new S3Client({}), config.listsBucket)
  : fileSnapshotStore(config.listsDir ?? 'infra/local/lists');
const sources = refreshingSources(
  () =>
    loadExternalSources(snapshots, shippedEthConfig, {
      onError: (source, error) => logger.warn('List snapshot not loaded', { source, error }),
    }),
  { onError: (error) => logger.error('External lists not loaded', { error }) },
);
sources.warm(); // at cold start, so the first check rarely waits for the lists
const checker = createChecker({ index: checkIndexRepository(documentClient, config.tableName), sources: sources.get });

export const handler = middy<ValidatedEvent<typeof request, Auth>, ApiResult>()
  .use(apiKeyAuth({ organization: false, scope: 'read' }))
  .use(jsonBody())
  .use(validate(request))
  .use(errorResponse()) // last, so middy runs its onError first
  .handler(async ({ body }) => json(200, await checker.check(body.content)));
