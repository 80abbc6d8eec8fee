import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsEvent } from 'aws-lambda';
import * as detectionRuntime from '../../shared/detection-runtime.ts';
import { samplesOfLogLine } from '../../shared/domain/detections/check-samples.ts';
import type { CandidateDeps } from '../../shared/domain/detections/index.ts';
import { feedCheckSamples } from '../../shared/domain/detections/sample-feed.ts';
import { logger } from '../../shared/logger.ts';
import * as runtime from '../../shared/runtime.ts';
import { workerHandler } from '../../shared/worker-handler.ts';

/** The contents of a CloudWatch Logs subscription event (gzipped, base64) of the check's sample lines. */
const contentsOf = (event: CloudWatchLogsEvent): string[] => {
  const data = JSON.parse(gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8')) as {
    logEvents?: { message: string }[];
  };
  return (data.logEvents ?? []).flatMap((logEvent) => samplesOfLogLine(logEvent.message));
};

/**
 * The subscription of the check's log group: its sampled unknown content, matched against the
 * brand terms of every organization with ASSET_CHECK on, becomes ASSET_CHECK detections.
 */
export const createHandler = (deps: () => CandidateDeps, now: () => number) => async (event: CloudWatchLogsEvent) => {
  const contents = contentsOf(event);
  const recorded = await feedCheckSamples(deps(), contents, now());
  logger.info('Check samples fed', { samples: contents.length, recorded });
  return { recorded };
};

export const handler = workerHandler(createHandler(detectionRuntime.detectionPipeline, runtime.now));

/** The local runtime's feed of one batch of samples, in the process that checked them. */
export const feedLocally = (contents: readonly string[]): Promise<number> =>
  feedCheckSamples(detectionRuntime.detectionPipeline(), contents, runtime.now());
