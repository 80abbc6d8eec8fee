import { Resolver as DnsResolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LogClient, LogEntry } from '../domain/detections/certstream.ts';
import type { Resolver } from '../domain/detections/dnstwist.ts';
import type { DetectionRun, RunQueue } from '../domain/detections/index.ts';
import { type Egress, egressRequest } from '../egress/index.ts';
import { inProcessRunner } from './in-process.ts';
import { sqsMessages } from './sqs.ts';

/** Answers that mean the name exists in DNS; NXDOMAIN (and no data) mean it does not. */
const DNS_TIMEOUT_MS = 2000;

/** Real DNS: a name is registered when it has an address or name servers. Timeouts count as unregistered. */
export const dnsResolver = (): Resolver => {
  const resolver = new DnsResolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  const exists = (lookup: Promise<unknown[]>) => lookup.then((answers) => answers.length > 0).catch(() => false);
  return {
    async registered(domain) {
      return (await exists(resolver.resolve4(domain))) || (await exists(resolver.resolveNs(domain)));
    },
  };
};

/** The local resolver: a file `{"registered": ["acrne.com", ...]}`; every other name is unregistered. */
export const fixtureResolver = (file: string): Resolver => {
  const { registered } = JSON.parse(readFileSync(file, 'utf8')) as { registered: string[] };
  const names = new Set(registered.map((name) => name.toLowerCase()));
  return { registered: async (domain) => names.has(domain.toLowerCase()) };
};

const LOG_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * An RFC 6962 log over HTTPS: `get-sth` for the tree size, `get-entries` for a range, each
 * request under the egress policy (a log's URL is configured by an organization).
 */
export const httpLogClient = (egress: Egress): LogClient => {
  const getJson = async (url: string): Promise<unknown> => {
    const answer = await egressRequest(
      url,
      { headers: { Accept: 'application/json' } },
      { ...egress, timeoutMs: LOG_TIMEOUT_MS, maxBytes: MAX_RESPONSE_BYTES },
    );
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`CT log answered ${answer.status} for ${new URL(url).pathname}`);
    }
    if (answer.truncated) throw new Error('CT log answer too large');
    return JSON.parse(answer.body.toString('utf8'));
  };
  return {
    async treeSize(log) {
      const sth = (await getJson(`${log.replace(/\/$/, '')}/ct/v1/get-sth`)) as { tree_size: number };
      return sth.tree_size;
    },
    async entries(log, start, end) {
      const body = (await getJson(`${log.replace(/\/$/, '')}/ct/v1/get-entries?start=${start}&end=${end}`)) as {
        entries: LogEntry[];
      };
      return body.entries;
    },
  };
};

/**
 * A recorded log, replayed locally: a file `{"entries": [{leaf_input, extra_data}, ...]}` that
 * answers for every log URL, as the log whose tree holds exactly those entries.
 */
export const recordedLogClient = (file: string): LogClient => {
  let entries: LogEntry[] | undefined;
  const load = () => {
    entries ??= (JSON.parse(readFileSync(file, 'utf8')) as { entries: LogEntry[] }).entries;
    return entries;
  };
  return {
    treeSize: async () => load().length,
    entries: async (_log, start, end) => load().slice(start, end + 1),
  };
};

/**
 * The names of logs where a recorded log stands in for every log (locally): each resolves to one
 * public stand-in address, so a log URL passes or fails the egress policy on its form (`https`,
 * no credentials, no loopback or private address written in it) as it would in AWS. The
 * recording answers for every log, so nothing connects to that address.
 */
export const recordedLogNames = async (): Promise<string[]> => ['192.0.32.10'];

/** Runs handed to the in-process runner. */
const runs = inProcessRunner();

/** The local runner: runs start once the request has answered, in this process. */
export const inProcessRunQueue = (run: (runs: readonly DetectionRun[]) => Promise<void>): RunQueue => ({
  async send(queued) {
    runs.start(run, queued);
  },
});

/** Resolves once every run handed to the in-process runner so far has finished. */
export const inProcessRunsSettled = (): Promise<void> => runs.settled();

/** One SQS message per run, the run as its body; the run worker takes it from there. */
export const sqsRunQueue = (sqs: SQSClient, queueUrl: string): RunQueue => {
  const messages = sqsMessages(sqs, queueUrl, 'Detection runs');
  return { send: (runs) => messages.send(runs.map((run) => ({ id: String(run.runId), body: JSON.stringify(run) }))) };
};
