import type { Caller } from '../account/access.ts';
import { orderedBounds } from '../core/dates.ts';
import { organizationFor } from './configs.ts';
import type { Detection, DetectionDeps } from './model.ts';
import { confidenceOf } from './scoring.ts';

export type ListFilter = {
  property: 'source' | 'assetStatus' | 'confidence' | 'assetType';
  operator: 'in' | 'notIn';
  value: string[];
};

const MAX_LIST_READS = 20;
const READ_PAGE = 100;

/**
 * `POST /detection/list`: newest first; filters ANDed; `query` a case-insensitive substring of the
 * threat content; `startDate`/`endDate` UTC days, inclusive, of `createdAt`.
 */
export const listDetections = async (
  deps: DetectionDeps,
  caller: Caller,
  body: {
    slug: string;
    cursor?: number;
    limit?: number;
    filters?: ListFilter[];
    query?: string;
    startDate?: string;
    endDate?: string;
  },
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  orderedBounds(body.startDate, body.endDate);
  const settings = await deps.store.settings(orgId);
  const limit = body.limit ?? 50;
  const query = (body.query ?? '').toLowerCase();
  const view = (detection: Detection) => {
    const { orgId: _org, ...rest } = detection;
    return { ...rest, confidence: confidenceOf(detection.score, settings.thresholds) };
  };
  const fieldOf = (detection: ReturnType<typeof view>, property: ListFilter['property']): string =>
    property === 'source'
      ? detection.source
      : property === 'confidence'
        ? detection.confidence
        : property === 'assetStatus'
          ? detection.asset.status
          : detection.asset.type;
  const keep = (detection: ReturnType<typeof view>) =>
    (body.filters ?? []).every(
      (filter) => filter.value.includes(fieldOf(detection, filter.property)) === (filter.operator === 'in'),
    ) &&
    (query === '' || detection.threatContent.toLowerCase().includes(query)) &&
    (body.startDate === undefined || detection.createdAt.slice(0, 10) >= body.startDate) &&
    (body.endDate === undefined || detection.createdAt.slice(0, 10) <= body.endDate);
  const out: ReturnType<typeof view>[] = [];
  let before = body.cursor;
  let more = true;
  for (let reads = 0; reads < MAX_LIST_READS && more && out.length < limit; reads++) {
    const page = await deps.store.listDetections(orgId, before, READ_PAGE);
    more = page.more;
    for (const item of page.items) {
      before = item.id;
      const shown = view(item);
      if (keep(shown)) out.push(shown);
      if (out.length >= limit) {
        more = more || page.items[page.items.length - 1] !== item;
        break;
      }
    }
  }
  return { detections: out, nextCursor: more && before !== undefined ? before : null };
};
