import { ingestActivityBatch } from '../../shared/ingest.ts';
import * as runtime from '../../shared/runtime.ts';

export const createHandler = ingestActivityBatch;

export const handler = createHandler({
  store: runtime.activity(),
  // Built on first use: only a rejected message needs the queue.
  deadLetters: { put: (message, reason) => runtime.deadLetters().put(message, reason) },
});
