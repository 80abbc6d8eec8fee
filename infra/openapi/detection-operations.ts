import * as v from 'valibot';
import type { OperationDoc, ResponseDoc } from './operation-doc.ts';

const error = (description: string): ResponseDoc => ({ description, error: true });

const id = v.pipe(v.number(), v.integer(), v.minValue(1));
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const sourceKey = v.string();
const config = v.object({
  id,
  source: sourceKey,
  brandId: v.nullable(id),
  title: v.string(),
  description: v.string(),
  status: v.picklist(['ENABLED', 'DISABLED']),
  cron: v.nullable(v.string()),
  config: v.record(v.string(), v.unknown()),
  createdAt: timestamp,
  updatedAt: timestamp,
  lastRunAt: v.nullable(timestamp),
  lastResultCount: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const detection = v.object({
  id,
  threatContent: v.string(),
  source: sourceKey,
  createdAt: timestamp,
  confidence: v.picklist(['none', 'low', 'medium', 'high']),
  reportStatus: v.picklist(['REPORTED', 'NOT_REPORTED']),
  reportedAt: v.nullable(timestamp),
  asset: v.object({ id, content: v.string(), type: v.string(), status: v.picklist(['UNKNOWN', 'ALLOWED', 'BLOCKED']) }),
  score: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  reason: v.nullable(v.string()),
  configId: v.nullable(id),
  brands: v.array(v.object({ id, name: v.string(), slug: v.string() })),
});

const BODY = {
  sources: v.object({
    sources: v.array(
      v.object({
        key: sourceKey,
        name: v.string(),
        description: v.string(),
        mode: v.picklist(['pull', 'push']),
        scopes: v.array(v.picklist(['organization', 'global'])),
        assetTypes: v.array(v.string()),
        brandScoped: v.boolean(),
        configSchema: v.record(v.string(), v.unknown()),
        defaultCron: v.nullable(v.string()),
        enabledByDefault: v.boolean(),
      }),
    ),
  }),
  configs: v.object({ sources: v.array(v.object({ source: sourceKey, configs: v.array(config) })) }),
  config,
  deleted: v.object({ id, deletedAt: timestamp }),
  runs: v.object({ runs: v.array(v.object({ configId: id, runId: id, status: v.literal('QUEUED') })) }),
  validated: v.object({
    results: v.array(v.object({ configId: id, source: sourceKey, resultCount: v.number(), ok: v.boolean() })),
    failures: v.array(id),
  }),
  detections: v.object({ detections: v.array(detection), nextCursor: v.nullable(id) }),
  drift: v.object({
    signals: v.array(
      v.object({
        kind: v.picklist(['silent-config', 'noisy-source', 'stale-query']),
        configId: v.nullable(id),
        source: sourceKey,
        detail: v.string(),
        since: timestamp,
      }),
    ),
  }),
};

const CALLER =
  'An organization key (its own `slug`), or a user key with the `slug` of an organization the user is an active member of; else 403 `API key does not have access to this organization`.';
const CONFIG_EXAMPLE = {
  id: 1790000000000123,
  source: 'DNS_TWIST',
  brandId: null,
  title: 'Typosquats of acme.com',
  description: '',
  status: 'ENABLED',
  cron: null,
  config: { domains: ['acme.com'] },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  lastRunAt: null,
  lastResultCount: null,
};
const NO_CONFIG = error('No config of the organization has this id (another organization’s config included)');
const BAD_CONFIG = error(
  'The config does not satisfy the source’s schema (the issue names the failing path), or an unknown source',
);

/** The routes of detections: sources, configs, runs, findings and drift. */
export const DETECTION_OPERATIONS: Record<string, OperationDoc> = {
  'list-detection-sources': {
    summary: 'List detection sources',
    description: `The sources the service runs: \`DNS_TWIST\` (registered lookalike permutations of the brands' domains), \`CERTSTREAM\` (names in new certificates of certificate-transparency logs), \`ASSET_CHECK\` and \`EXTERNAL\` (pushed content). Each with its mode (\`pull\` sources run on a schedule and take \`cron\`), its \`scopes\` (\`organization\`: configs belong to one organization; every source here is organization-scoped, none is \`global\`), the asset types it finds, and \`configSchema\`, the JSON Schema a config's \`config\` must satisfy. ${CALLER} The slug is the \`slug\` query parameter.`,
    tag: 'Detections',
    responses: { 200: { description: 'The catalogue', body: BODY.sources } },
  },
  'list-detection-configs': {
    summary: 'List detection configs',
    description: `The organization's configs, grouped by source; deleted configs are left out. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme' },
    responses: {
      200: {
        description: 'Configs by source',
        body: BODY.configs,
        example: { sources: [{ source: 'DNS_TWIST', configs: [CONFIG_EXAMPLE] }] },
      },
    },
  },
  'create-detection-config': {
    summary: 'Create a detection config',
    description: `A config of a source for the organization (or one of its brands, \`brandId\`). \`config\` is validated against the source's \`configSchema\` (\`{}\` is allowed, defaults apply at run time); \`cron\` only for pull sources. The config and its first history row are written together. ${CALLER}`,
    tag: 'Detections',
    requestExample: {
      slug: 'acme',
      source: 'DNS_TWIST',
      config: { domains: ['acme.com'] },
      title: 'Typosquats of acme.com',
    },
    responses: {
      200: { description: 'The config', body: BODY.config, example: CONFIG_EXAMPLE },
      400: BAD_CONFIG,
    },
  },
  'update-detection-config': {
    summary: 'Update a detection config',
    description: `Changes status (\`DISABLED\` is durable), \`cron\`, \`title\`, \`description\` or \`config\`; \`config\` is merged into the stored one unless \`mergeConfig\` is false, and the result is validated against the source's schema. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme', configId: 1790000000000123, status: 'DISABLED' },
    responses: {
      200: { description: 'The config', body: BODY.config, example: { ...CONFIG_EXAMPLE, status: 'DISABLED' } },
      400: BAD_CONFIG,
      404: NO_CONFIG,
    },
  },
  'delete-detection-config': {
    summary: 'Delete a detection config',
    description: `A soft delete: the config stops running and leaves the listings; its history keeps a row of the deletion. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme', configId: 1790000000000123 },
    responses: {
      200: {
        description: 'The deleted config',
        body: BODY.deleted,
        example: { id: 1790000000000123, deletedAt: '2026-03-02T10:00:00.000Z' },
      },
      404: NO_CONFIG,
    },
  },
  'run-detection-configs': {
    summary: 'Run detection configs',
    description: `Queues a run of one config (\`configId\`), of a source's configs (\`source\`), or of every enabled config (disabled ones too with \`includeDisabled\`); the runs happen in the background. Each run's candidates become assets (allowlisted ones are skipped), are scored by the threat engine, and become one detection per asset, source and organization; with auto-reporting on, a detection at or above the medium threshold files its report once. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme', source: 'DNS_TWIST' },
    responses: {
      200: {
        description: 'The queued runs',
        body: BODY.runs,
        example: { runs: [{ configId: 1790000000000123, runId: 1790000000500456, status: 'QUEUED' }] },
      },
      404: NO_CONFIG,
    },
  },
  'validate-detection-configs': {
    summary: 'Validate detection configs',
    description: `Each selected config passes when its runs within \`lookbackHours\` (default 168) found at least \`minResults\` (default 1) detections; \`run\` runs them first. \`failures\` lists the silent ones. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme', minResults: 1, lookbackHours: 168 },
    responses: {
      200: {
        description: 'Per-config results',
        body: BODY.validated,
        example: {
          results: [{ configId: 1790000000000123, source: 'DNS_TWIST', resultCount: 0, ok: false }],
          failures: [1790000000000123],
        },
      },
    },
  },
  'list-detections': {
    summary: 'List detections',
    description: `The organization's detections, newest first: \`filters\` (ANDed; \`property\` source, assetStatus, confidence or assetType; \`operator\` in or notIn), \`query\` (case-insensitive substring of the threat content), \`startDate\`/\`endDate\` (UTC days of \`createdAt\`, inclusive). \`confidence\` buckets \`score\` (0–1) by the organization's thresholds (default low 0.3, medium 0.6, high 0.85). Pass \`nextCursor\` back as \`cursor\`; \`null\` is the end. ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme', limit: 50, filters: [{ property: 'confidence', operator: 'in', value: ['high'] }] },
    responses: { 200: { description: 'A page of detections', body: BODY.detections } },
  },
  'get-detection-drift': {
    summary: 'Get detection drift signals',
    description: `From the run history within \`lookbackHours\` (default 168): \`silent-config\` (an enabled config whose last three runs found nothing), \`noisy-source\` (at least 20 detections, 80% of them below medium confidence), \`stale-query\` (a config unchanged for 30 days whose latest run found less than half its first). ${CALLER}`,
    tag: 'Detections',
    requestExample: { slug: 'acme' },
    responses: { 200: { description: 'The signals', body: BODY.drift } },
  },
};
