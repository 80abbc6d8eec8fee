import { config } from './config.ts';
import { dnsResolver, fixtureResolver, httpLogClient, recordedLogClient } from './db/detection-sources.ts';
import { httpTileClient, logListLogs, recordedTileClient, SHIPPED_CT_LOG_LIST } from './db/static-ct-sources.ts';
import { certificateNames } from './domain/detections/certstream.ts';
import { type DetectionRun, type PipelineDeps, runQueued } from './domain/detections/index.ts';
import { logger } from './logger.ts';
import { ctLogEgress, detectionFiling, now, once } from './runtime.ts';

/* The detection runs' composition: what a run needs (DNS, certificate-transparency logs, the check and the lifecycle to file reports), for the run worker, the sample worker and the local runtime. */

/** DNS lookups a DNS_TWIST run keeps in flight at once. */
const RESOLVER_CONCURRENCY = 32;
/** What a detection run needs: the check, the organization's brands and assets, DNS, CT logs, and the lifecycle to file reports. */
export const detectionPipeline = /* @__PURE__ */ once(
  (): PipelineDeps => ({
    ...detectionFiling(),
    resolver: config.detectionDnsFixture === undefined ? dnsResolver() : fixtureResolver(config.detectionDnsFixture),
    certificates:
      config.detectionCtRecording === undefined
        ? certificateNames(httpLogClient(ctLogEgress()), {
            tiles: httpTileClient(ctLogEgress()),
            defaultLogs: logListLogs(SHIPPED_CT_LOG_LIST, now),
          })
        : certificateNames(recordedLogClient(config.detectionCtRecording), {
            replay: true,
            ...(config.detectionCtStaticRecording === undefined
              ? {}
              : { tiles: recordedTileClient(config.detectionCtStaticRecording) }),
            defaultLogs: logListLogs(SHIPPED_CT_LOG_LIST, now),
          }),
    resolverConcurrency: RESOLVER_CONCURRENCY,
  }),
);
/** How long a worker holds a run it took; past it (the worker died) a redelivered message takes it again. */
export const DETECTION_RUN_LEASE_MS = 15 * 60_000;
/** Runs the queued detection runs one after another in this process; a failed run is recorded FAILED and logged. */
export const runDetections = async (runs: readonly DetectionRun[]) => {
  for (const run of runs) {
    await runQueued(detectionPipeline(), run, now(), DETECTION_RUN_LEASE_MS).catch((error: unknown) =>
      logger.error('Detection run failed', { error, configId: run.configId, runId: run.runId }),
    );
  }
};
