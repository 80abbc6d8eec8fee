import * as v from 'valibot';
import { ASSET_STATUSES, ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { CHECK_CODES, CHECK_REASONS, SOURCE_ORDER } from '../../shared/domain/check/index.ts';

/** Bodies of successful responses, as clients receive them. */
const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const day = v.pipe(v.string(), v.isoDate());
const status = v.picklist(ASSET_STATUSES);

const asset = v.object({
  id,
  content: v.string(),
  type: v.picklist(ASSET_TYPES),
  status,
  name: v.optional(v.string()),
  description: v.nullable(v.string()),
  group: v.nullable(v.object({ id, name: v.string() })),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** The metric counters every metrics answer carries (v1 and v2). */
export const counters = {
  reports: count,
  newThreats: count,
  threatsWatchlisted: count,
  takedownsFiled: count,
  takedownsCompleted: count,
  domainThreats: count,
  twitterThreats: count,
  telegramThreats: count,
  otherThreats: count,
};
const series = {
  blockedByType: v.array(v.object({ type: v.string(), count })),
  blockedByDay: v.array(v.object({ date: day, count })),
};

const source = v.picklist(SOURCE_ORDER);

export const BODY = {
  openApiDocument: v.object({
    openapi: v.literal('3.1.0'),
    info: v.object({ title: v.string(), version: v.string() }),
    paths: v.record(v.string(), v.record(v.string(), v.unknown())),
  }),
  asset,
  assetPage: v.object({ assets: v.array(asset), next_page: v.nullable(v.string()) }),
  assetsAdded: v.object({
    results: v.array(
      v.union([
        v.object({ content: v.string(), success: v.literal(true), id, asset }),
        v.object({ content: v.string(), success: v.literal(false), error: v.string() }),
      ]),
    ),
    successCount: count,
    errorCount: count,
  }),
  assetUpdated: v.object({ ...asset.entries, groupId: v.nullable(id) }),
  assetRemoved: v.object({ success: v.literal(true), id }),
  group: v.object({ id, name: v.string() }),
  groups: v.object({ groups: v.array(v.object({ id, name: v.string(), assetCount: count })) }),
  groupRemoved: v.object({ success: v.literal(true), id, unassignedAssetCount: count }),
  metrics: v.object({ metrics: v.object(counters), ...series }),
  legacyMetrics: v.object({
    metrics: v.object({
      ...counters,
      reportsCount: count,
      threatsBlockedCount: count,
      threatsBlockedByAssetType: v.array(v.object({ assetType: v.string(), count })),
      domainsBlockedCount: count,
      totalTakedownsFiledCount: count,
      totalTakedownsCompletedCount: count,
      totalDetections: count,
    }),
    ...series,
  }),
  checkResult: v.object({
    status,
    source,
    sources: v.array(v.object({ source, status, reason: v.optional(v.picklist(['timeout', 'source-error'])) })),
    reason: v.optional(v.picklist(CHECK_REASONS)),
    code: v.optional(v.picklist(CHECK_CODES)),
    message: v.optional(v.string()),
    watchStatus: v.optional(v.picklist(['ENABLED', 'DISABLED'])),
  }),
  changelog: v.object({
    changes: v.array(
      v.object({
        content: v.string(),
        type: v.nullable(v.picklist(ASSET_TYPES)),
        status,
        watchStatus: v.picklist(['ENABLED', 'DISABLED']),
        changedAt: timestamp,
        version: v.string(),
      }),
    ),
    next_page: v.nullable(v.string()),
    version: v.string(),
  }),
  verdictList: v.object({
    assets: v.array(
      v.object({
        content: v.string(),
        type: v.picklist(ASSET_TYPES),
        status,
        watchStatus: v.picklist(['ENABLED', 'DISABLED']),
        updatedAt: timestamp,
        version: v.string(),
      }),
    ),
    next_page: v.nullable(v.string()),
  }),
};

/** Every error body: the flat fields of the spec, the wrapped `error` object, and the request id. */
export const errorBody = (code: string) =>
  v.object({
    code: v.literal(code),
    message: v.string(),
    issues: v.optional(v.array(v.object({ message: v.string(), path: v.optional(v.string()) }))),
    /** Machine-readable details a client acts on, such as the per-asset `errors` of a refused report. */
    data: v.optional(v.record(v.string(), v.unknown())),
    error: v.object({ code: v.literal(code), message: v.string() }),
    requestId: v.string(),
  });
