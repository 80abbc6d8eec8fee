/** Where the API description that `GET /v2/openapi.json` serves is committed, and how it is written. */
export const DOCUMENT_FILE = 'functions/pages/openapi.json';

export const serialize = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;
