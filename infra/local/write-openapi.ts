import { writeFileSync } from 'node:fs';
import { useSuffixFile } from '../../shared/db/adapters/public-suffix-file.ts';
import { DOCUMENT_FILE, serialize } from '../openapi/file.ts';
import { applyLocalEnv, localEndpoint } from './settings.ts';

/** `npm run openapi`: writes the API description that `GET /v2/openapi.json` serves. */
// Importing a handler module builds its production dependencies (lazily: no connection is made).
applyLocalEnv(localEndpoint());
// The published examples canonicalize their content as their module loads: the suffix data comes first.
useSuffixFile();
const { buildDocument } = await import('../openapi/document.ts');
writeFileSync(DOCUMENT_FILE, serialize(await buildDocument()));
console.log(`Wrote ${DOCUMENT_FILE}`);
