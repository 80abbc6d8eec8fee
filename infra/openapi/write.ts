import { writeFileSync } from 'node:fs';
import { applyLocalEnv, localEndpoint } from '../local/settings.ts';
import { buildDocument } from './document.ts';

/** `npm run openapi`: writes the API description that `GET /v2/openapi.json` serves. */
export const DOCUMENT_FILE = 'functions/pages/openapi.json';

export const serialize = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

if (import.meta.main) {
  // Importing a handler module builds its production dependencies (lazily: no connection is made).
  applyLocalEnv(localEndpoint());
  writeFileSync(DOCUMENT_FILE, serialize(await buildDocument()));
  console.log(`Wrote ${DOCUMENT_FILE}`);
}
