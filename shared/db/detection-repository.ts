import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  DEFAULT_SETTINGS,
  type Detection,
  type DetectionConfig,
  type DetectionRun,
  type DetectionSettings,
  type DetectionStore,
} from '../domain/detections/detections.ts';
import { detectionCounterUpdates } from './detection-counters.ts';
import { key } from './keys.ts';

const strip = <T>(item: Record<string, unknown>): T => {
  const { PK: _pk, SK: _sk, entity: _entity, ...rest } = item;
  return rest as T;
};

const failed = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return false;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return true;
    if (
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.some((r) => r.Code === 'ConditionalCheckFailed')
    ) {
      return true;
    }
    throw error;
  }
};

const queryAll = async (
  db: DynamoDBDocumentClient,
  TableName: string,
  PK: string,
  from: string,
  to: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': PK, ':from': from, ':to': to },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** Detections, their configs, runs, stream positions and settings: one partition per organization. */
export const detectionRepository = (db: DynamoDBDocumentClient, TableName: string): DetectionStore => ({
  async settings(orgId) {
    const { Item } = await db.send(new GetCommand({ TableName, Key: key.detectionSettings(orgId) }));
    if (!Item) return DEFAULT_SETTINGS;
    const stored = strip<Partial<DetectionSettings>>(Item);
    return { thresholds: stored.thresholds ?? DEFAULT_SETTINGS.thresholds, autoReport: stored.autoReport ?? false };
  },

  async createConfig(config) {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName,
              Item: { ...key.detectionConfig(config.orgId, config.id), entity: 'DETECTION_CONFIG', ...config },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName,
              Item: {
                ...key.detectionConfigHistory(config.orgId, config.id, config.updatedAt),
                entity: 'DETECTION_CONFIG_HISTORY',
                status: config.status,
                change: 'created',
              },
            },
          },
        ],
      }),
    );
  },

  async updateConfig(config, expected) {
    const change = config.deletedAt !== null ? 'deleted' : config.updatedAt === expected ? 'ran' : 'updated';
    const history =
      change === 'ran'
        ? []
        : [
            {
              Put: {
                TableName,
                Item: {
                  ...key.detectionConfigHistory(config.orgId, config.id, config.updatedAt),
                  entity: 'DETECTION_CONFIG_HISTORY',
                  status: config.status,
                  change,
                },
              },
            },
          ];
    return !(await failed(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName,
                Item: { ...key.detectionConfig(config.orgId, config.id), entity: 'DETECTION_CONFIG', ...config },
                ConditionExpression: 'updatedAt = :expected AND attribute_type(deletedAt, :null)',
                ExpressionAttributeValues: { ':expected': expected, ':null': 'NULL' },
              },
            },
            ...history,
          ],
        }),
      ),
    ));
  },

  async findConfig(orgId, id) {
    const { Item } = await db.send(
      new GetCommand({ TableName, Key: key.detectionConfig(orgId, id), ConsistentRead: true }),
    );
    return Item ? strip<DetectionConfig>(Item) : undefined;
  },

  async listConfigs(orgId) {
    const prefix = key.detectionConfigs.prefix;
    const items = await queryAll(db, TableName, key.detectionConfigs.PK(orgId), prefix, `${prefix}\uffff`);
    return items.map((item) => strip<DetectionConfig>(item));
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
    const items = await queryAll(db, TableName, key.detectionRuns.PK(orgId), `${prefix}${since}`, `${prefix}\uffff`);
    return items.map((item) => strip<DetectionRun>(item));
  },

  async record(detection) {
    try {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName,
                Item: {
                  ...key.detectionMarker(detection.orgId, detection.source, detection.asset.id),
                  entity: 'DETECTION_MARKER',
                  detectionId: detection.id,
                },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            {
              Put: {
                TableName,
                Item: { ...key.detection(detection.orgId, detection.id), entity: 'DETECTION', ...detection },
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
            // Counted with the detection, once.
            ...detectionCounterUpdates(TableName, detection),
          ],
        }),
      );
      return 'recorded';
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const [marker, item] = error.CancellationReasons ?? [];
      if (marker?.Code === 'ConditionalCheckFailed') return 'duplicate';
      if (item?.Code === 'ConditionalCheckFailed') return 'id-taken';
      throw error;
    }
  },

  async claimReport(orgId, id) {
    return !(await failed(
      db.send(
        new UpdateCommand({
          TableName,
          Key: key.detection(orgId, id),
          UpdateExpression: 'SET reportClaimed = :yes',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(reportClaimed)',
          ExpressionAttributeValues: { ':yes': true },
        }),
      ),
    ));
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
        const { reportClaimed: _claimed, ...rest } = strip<Detection & { reportClaimed?: boolean }>(item);
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
