import { config } from '../config.ts';
import { createDocumentClient } from './client.ts';

/** The container's one client, built at cold start. */
export const documentClient = createDocumentClient(config.dynamoEndpoint);
