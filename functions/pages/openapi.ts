import { publicHandler } from '../../shared/http/api-handler.ts';
import document from './openapi.json' with { type: 'json' };

/** Written by `npm run openapi` from the route table and the handlers' schemas; a test keeps it current. */
const body = JSON.stringify(document);

export const handler = publicHandler(async () => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
  body,
}));
