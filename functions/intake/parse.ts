import * as v from 'valibot';
import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { PublicSuffixes } from '../../shared/domain/check/index.ts';
import { MAX_PARSE_LENGTH, parseRequest } from '../../shared/domain/intake/parse.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { boundedText, nullable } from '../../shared/http/schemas.ts';
import * as runtime from '../../shared/runtime.ts';

/** The body decides: the published `{content}` (one asset), or this service's `{text}` (every asset in a text). */
export const request = {
  body: v.object(
    {
      content: nullable(boundedText('content', 1, 4096)),
      text: nullable(
        v.pipe(
          v.string('text must be a string'),
          v.maxLength(MAX_PARSE_LENGTH, `text must be at most ${MAX_PARSE_LENGTH} characters`),
        ),
      ),
    },
    'Request body must be an object with content or text',
  ),
};

/** 20,000 characters, each escaped in the JSON (`\uXXXX`, 6 bytes), and the rest of the body. */
const MAX_BODY_BYTES = 6 * MAX_PARSE_LENGTH + 1024;

export const createHandler = ({ keys, suffixes }: { keys: KeyResolver; suffixes: PublicSuffixes }) =>
  apiHandler(
    { request, caller: 'any', scope: 'read', rateClass: 'read', keys, body: { maxBytes: MAX_BODY_BYTES } },
    async ({ body }) => json(200, parseRequest(suffixes, body)),
  );

export const handler = createHandler({ keys: runtime.keys(), suffixes: runtime.suffixes() });
