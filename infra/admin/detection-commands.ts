import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { changeDetectionSettings } from '../../shared/domain/detections/index.ts';

export const DETECTION_USAGE = `  org detections <org>                         the organization's detection settings (auto-report, thresholds)
  org detections <org> auto-report on|off      turn auto-reporting of medium-or-higher detections on or off
  org detections <org> thresholds <low> <medium> <high>
                                               confidence thresholds, each from 0 to 1, in order
  migrate detections                           list the enabled detection configs written before schedules existed
                                               for the scheduler and the feeds (rerun it at any time)`;

const threshold = (text: string | undefined): number => {
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value)) {
    throw new Error(`Usage:\n${DETECTION_USAGE}`);
  }
  return value;
};

/** `npm run admin -- org detections …`: shows or changes an organization's detection settings. */
export const detectionsCommand = async (
  db: DynamoDBDocumentClient,
  table: string,
  orgId: string,
  words: readonly string[],
): Promise<string> => {
  const store = detectionRepository(db, table);
  const [setting, ...values] = words;
  if (setting === undefined) return JSON.stringify(await store.settings(orgId), null, 2);
  if (setting === 'auto-report' && values.length === 1 && (values[0] === 'on' || values[0] === 'off')) {
    return JSON.stringify(await changeDetectionSettings(store, orgId, { autoReport: values[0] === 'on' }), null, 2);
  }
  if (setting === 'thresholds' && values.length === 3) {
    const [low, medium, high] = values.map(threshold) as [number, number, number];
    return JSON.stringify(await changeDetectionSettings(store, orgId, { thresholds: { low, medium, high } }), null, 2);
  }
  throw new Error(`Usage:\n${DETECTION_USAGE}`);
};
