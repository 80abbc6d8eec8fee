import { writeFileSync } from 'node:fs';
import { DOCUMENT_FILE, serialize } from '../openapi/file.ts';
import { applyLocalEnv, localEndpoint } from './settings.ts';

/** `npm run openapi`: writes the API description that `GET /v2/openapi.json` serves. */
// Importing a handler module builds its production dependencies (lazily: no connection is made).
applyLocalEnv(localEndpoint());
const { buildDocument } = await import('../openapi/document.ts');
writeFileSync(DOCUMENT_FILE, serialize(await buildDocument()));
console.log(`Wrote ${DOCUMENT_FILE}`);
