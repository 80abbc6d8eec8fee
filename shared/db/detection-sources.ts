import { Resolver as DnsResolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LogClient, LogEntry } from '../domain/detections/certstream.ts';
import type { DetectionRun, RunQueue } from '../domain/detections/detections.ts';
import type { Resolver } from '../domain/detections/dnstwist.ts';
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

const getJson = async (url: string): Promise<unknown> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(LOG_TIMEOUT_MS), redirect: 'error' });
  if (!response.ok) throw new Error(`CT log answered ${response.status} for ${new URL(url).pathname}`);
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new Error('CT log answer too large');
  return JSON.parse(text);
};

/** An RFC 6962 log over HTTPS: `get-sth` for the tree size, `get-entries` for a range. */
export const httpLogClient = (): LogClient => ({
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
});

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

/** Runs handed to the in-process runner and not finished yet. */
const running = new Set<Promise<void>>();

/** The local runner: runs start once the request has answered, in this process. */
export const inProcessRunQueue = (run: (runs: readonly DetectionRun[]) => Promise<void>): RunQueue => ({
  async send(runs) {
    const done = new Promise<void>((resolve) => {
      setImmediate(() => {
        run(runs).finally(resolve);
      });
    });
    running.add(done);
    void done.finally(() => running.delete(done));
  },
});

/** Resolves once every run handed to the in-process runner so far has finished. */
export const inProcessRunsSettled = async (): Promise<void> => {
  while (running.size > 0) await Promise.all(running);
};

/** One SQS message per run, the run as its body; the run worker takes it from there. */
export const sqsRunQueue = (sqs: SQSClient, queueUrl: string): RunQueue => {
  const messages = sqsMessages(sqs, queueUrl, 'Detection runs');
  return { send: (runs) => messages.send(runs.map((run) => ({ id: String(run.runId), body: JSON.stringify(run) }))) };
};
