import type { KeyResolver } from '../../shared/domain/account/api-keys.ts';
import type { CursorCodec } from '../../shared/domain/core/cursor.ts';
import { utcDay } from '../../shared/domain/core/dates.ts';
import { listVerdicts, type VerdictExportStore } from '../../shared/domain/verdict-feed/index.ts';
import { apiHandler } from '../../shared/http/api-handler.ts';
import { json } from '../../shared/http/json.ts';
import { verdictListBody } from '../../shared/http/verdict-schemas.ts';
import * as runtime from '../../shared/runtime.ts';

export const request = { body: verdictListBody };
type Deps = { keys: KeyResolver; verdicts: VerdictExportStore; cursors: CursorCodec; now: () => number };

export const createHandler = ({ keys, verdicts, cursors, now }: Deps) =>
  apiHandler({ request, caller: 'any', scope: 'read', rateClass: 'read', keys }, async ({ body }) => {
    const { per_page, next_page, ...filter } = body;
    const paging = { perPage: per_page, ...(next_page === undefined ? {} : { nextPage: next_page }) };
    return json(200, await listVerdicts(verdicts, cursors, { ...filter, ...paging }, utcDay(now())));
  });

export const handler = createHandler({
  keys: runtime.keys(),
  verdicts: runtime.verdictExport(),
  cursors: runtime.cursors(),
  now: runtime.now,
});
