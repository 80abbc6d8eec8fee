import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type ConfigListing,
  DEFAULT_SETTINGS,
  type Detection,
  type DetectionConfig,
  type DetectionRun,
  type DetectionSettings,
  type DetectionStore,
} from '../domain/detections/index.ts';
import { queryPages } from './batch.ts';
import { changeWriter, claim, record, refuse } from './change-set.ts';
import { detectionFeedPut } from './delivery-repository.ts';
import { detectionCounterChanges } from './detection-counters.ts';
import { attributesOf, conditionHeld, updateIf } from './items.ts';
import { key } from './keys.ts';

/** Every item of partition `PK`, page after page, optionally only sort keys from `from` to `to`. */
const queryAll = async (
  db: DynamoDBDocumentClient,
  TableName: string,
  PK: string,
  range?: { from: string; to: string },
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  const pages = queryPages(db, {
    TableName,
    KeyConditionExpression: range === undefined ? 'PK = :pk' : 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues:
      range === undefined ? { ':pk': PK } : { ':pk': PK, ':from': range.from, ':to': range.to },
  });
  for await (const page of pages) items.push(...page);
  return items;
};

/** The history entry of a config's change (kept for drift): its status as of `updatedAt`. */
const historyPut = (config: DetectionConfig, change: 'created' | 'updated' | 'deleted') => ({
  Put: {
    Item: {
      ...key.detectionConfigHistory(config.orgId, config.id, config.updatedAt),
      entity: 'DETECTION_CONFIG_HISTORY',
      status: config.status,
      change,
    },
  },
});

const putListing = (listing: ConfigListing) => ({
  Put: {
    Item: {
      ...key.detectionListing(listing.slot, listing.orgId, listing.configId),
      entity: 'DETECTION_LISTING',
      ...listing,
    },
  },
});

/**
 * Detections, their configs, runs, stream positions and settings: one partition per organization;
 * the listings of enabled configs in one partition per schedule class or push source.
 */
export const detectionRepository = (db: DynamoDBDocumentClient, TableName: string): DetectionStore => ({
  async settings(orgId) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.detectionSettings(orgId) }));
    if (!Item) return DEFAULT_SETTINGS;
    const stored = attributesOf<Partial<DetectionSettings>>(Item);
    return { thresholds: stored.thresholds ?? DEFAULT_SETTINGS.thresholds, autoReport: stored.autoReport ?? false };
  },

  async putSettings(orgId, settings) {
    await db.send(
      new PutCommand({
        TableName,
        Item: { ...key.detectionSettings(orgId), entity: 'DETECTION_SETTINGS', ...settings },
      }),
    );
  },

  async createConfig(config, listing) {
    await changeWriter(db, TableName).commit(() => [
      claim(key.detectionConfig(config.orgId, config.id), { entity: 'DETECTION_CONFIG', ...config }),
      record(historyPut(config, 'created')),
      ...(listing === undefined ? [] : [record(putListing(listing))]),
    ]);
  },

  async updateConfig(config, expected, listings = {}) {
    const change = config.deletedAt !== null ? 'deleted' : config.updatedAt === expected ? 'ran' : 'updated';
    const history = change === 'ran' ? [] : [record(historyPut(config, change))];
    const outcome = await changeWriter(db, TableName).commit(() => [
      record(
        {
          Put: {
            Item: { ...key.detectionConfig(config.orgId, config.id), entity: 'DETECTION_CONFIG', ...config },
            ConditionExpression: 'updatedAt = :expected AND attribute_type(deletedAt, :null)',
            ExpressionAttributeValues: { ':expected': expected, ':null': 'NULL' },
          },
        },
        refuse('changed'),
      ),
      ...history,
      ...(listings.remove === undefined || listings.remove === listings.put?.slot
        ? []
        : [record({ Delete: { Key: key.detectionListing(listings.remove, config.orgId, config.id) } })]),
      ...(listings.put === undefined ? [] : [record(putListing(listings.put))]),
    ]);
    return outcome.committed;
  },

  async listListed(slot) {
    const items = await queryAll(db, TableName, key.detectionListings(slot));
    return items.map((item) => attributesOf<ConfigListing>(item));
  },

  async advanceListing(listing, seen, next) {
    return updateIf(db, {
      TableName,
      Key: key.detectionListing(listing.slot, listing.orgId, listing.configId),
      UpdateExpression: 'SET nextRunAt = :next',
      ConditionExpression: 'attribute_exists(PK) AND nextRunAt = :seen',
      ExpressionAttributeValues: { ':next': next, ':seen': seen },
    });
  },

  async putRunOnce(run) {
    return conditionHeld(
      db.send(
        new PutCommand({
          TableName,
          Item: { ...key.detectionRun(run.orgId, run.queuedAt, run.runId), entity: 'DETECTION_RUN', ...run },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  },

  async claimRun(run, now, leaseUntil) {
    return updateIf(db, {
      TableName,
      Key: key.detectionRun(run.orgId, run.queuedAt, run.runId),
      UpdateExpression: 'SET #status = :running, leaseUntil = :lease',
      ConditionExpression:
        'attribute_exists(PK) AND (#status IN (:queued, :failed) OR (#status = :running AND leaseUntil < :now))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':running': 'RUNNING',
        ':queued': 'QUEUED',
        ':failed': 'FAILED',
        ':lease': leaseUntil,
        ':now': now,
      },
    });
  },

  async findConfig(orgId, id) {
    const { Item } = await db.send(
      new GetCommand({ TableName, Key: key.detectionConfig(orgId, id), ConsistentRead: true }),
    );
    return Item ? attributesOf<DetectionConfig>(Item) : undefined;
  },

  async listConfigs(orgId) {
    const prefix = key.detectionConfigs.prefix;
    const items = await queryAll(db, TableName, key.detectionConfigs.PK(orgId), {
      from: prefix,
      to: `${prefix}\uffff`,
    });
    return items.map((item) => attributesOf<DetectionConfig>(item));
  },

  async putRun(run) {
    await db.send(
      new PutCommand({
        TableName,
        Item: { ...key.detectionRun(run.orgId, run.queuedAt, run.runId), entity: 'DETECTION_RUN', ...run },
      }),
    );
  },

  async listRuns(orgId, since) {
    const prefix = key.detectionRuns.prefix;
    const items = await queryAll(db, TableName, key.detectionRuns.PK(orgId), {
      from: `${prefix}${since}`,
      to: `${prefix}\uffff`,
    });
    return items.map((item) => attributesOf<DetectionRun>(item));
  },

  async record(detection) {
    const outcome = await changeWriter(db, TableName).commit(() => [
      claim(
        key.detectionMarker(detection.orgId, detection.source, detection.asset.id),
        { entity: 'DETECTION_MARKER', detectionId: detection.id },
        refuse('duplicate'),
      ),
      claim(key.detection(detection.orgId, detection.id), { entity: 'DETECTION', ...detection }, refuse('id-taken')),
      // Announces the new detection to webhooks; exists exactly when the detection does.
      record(detectionFeedPut(detection.orgId, detection.id)),
      // Counted with the detection, once.
      ...detectionCounterChanges(detection),
    ]);
    return outcome.committed ? 'recorded' : outcome.refused;
  },

  async claimReport(orgId, id) {
    return updateIf(db, {
      TableName,
      Key: key.detection(orgId, id),
      UpdateExpression: 'SET reportClaimed = :yes',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(reportClaimed)',
      ExpressionAttributeValues: { ':yes': true },
    });
  },

  async releaseReport(orgId, id) {
    await db.send(
      new UpdateCommand({ TableName, Key: key.detection(orgId, id), UpdateExpression: 'REMOVE reportClaimed' }),
    );
  },

  async markReported(orgId, id, at) {
    await db.send(
      new UpdateCommand({
        TableName,
        Key: key.detection(orgId, id),
        UpdateExpression: 'SET reportStatus = :reported, reportedAt = :at',
        ExpressionAttributeValues: { ':reported': 'REPORTED', ':at': at },
      }),
    );
  },

  async listDetections(orgId, before, limit) {
    const prefix = key.detections.prefix;
    const upper = before === undefined ? `${prefix}\uffff` : key.detection(orgId, before).SK;
    const page = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': key.detections.PK(orgId), ':from': prefix, ':to': upper },
        ScanIndexForward: false,
        Limit: limit + 1,
      }),
    );
    const items = (page.Items ?? [])
      .map((item) => {
        const { reportClaimed: _claimed, ...rest } = attributesOf<Detection & { reportClaimed?: boolean }>(item);
        return rest as Detection;
      })
      .filter((item) => before === undefined || item.id < before);
    return { items: items.slice(0, limit), more: items.length > limit || page.LastEvaluatedKey !== undefined };
  },

  async position(orgId, configId, stream) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.detectionPosition(orgId, configId, stream) }));
    return typeof Item?.position === 'number' ? Item.position : undefined;
  },

  async setPosition(orgId, configId, stream, position) {
    await db.send(
      new PutCommand({
        TableName,
        Item: { ...key.detectionPosition(orgId, configId, stream), entity: 'DETECTION_POSITION', stream, position },
      }),
    );
  },
});
