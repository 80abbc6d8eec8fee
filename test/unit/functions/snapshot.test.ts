import type { CloudFormationCustomResourceEvent, CloudFormationCustomResourceResponse } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../../functions/check/snapshot.ts';
import { memoryArtifactStore } from '../../../shared/db/blocklist-artifact-store.ts';
import { decodeArtifact } from '../../../shared/domain/blocklist/artifact.ts';
import { fullHash, prefixOf } from '../../../shared/domain/blocklist/expressions.ts';
import {
  BIT,
  pack,
  type VerdictLog,
  type VerdictSnapshot,
  type VerdictSnapshotStore,
} from '../../../shared/domain/verdict-feed/index.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');

const log: VerdictLog = {
  readFrom: async () => [],
  indexShards: 1,
  readIndexPage: async () => ({ keys: ['acme-airdrop.xyz'], states: [pack(1, BIT.block)] }),
};

const memorySnapshots = () => {
  const saved: VerdictSnapshot[] = [];
  const store: VerdictSnapshotStore = {
    latest: async () => saved.at(-1),
    save: async (snapshot) => {
      saved.push(snapshot);
    },
  };
  return { store, saved };
};

const failingSnapshots: VerdictSnapshotStore = {
  latest: async () => undefined,
  save: () => Promise.reject(new Error('Access Denied')),
};

/** The handler with its answers to CloudFormation recorded instead of sent. */
const handlerWith = (snapshots: VerdictSnapshotStore) => {
  const answers: { url: string; answer: CloudFormationCustomResourceResponse }[] = [];
  const handler = createHandler({
    log,
    snapshots,
    now: () => NOW,
    answer: async (url, answer) => {
      answers.push({ url, answer });
    },
  });
  return { handler, answers };
};

const stackEvent = (requestType: 'Create' | 'Delete'): CloudFormationCustomResourceEvent => ({
  ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:snapshot',
  ResponseURL: 'https://cloudformation-custom-resource-response.example/answer?signature=1',
  StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/AssetProtection-dev/1',
  RequestId: 'request-1',
  LogicalResourceId: 'VerdictSnapshotsFirstSnapshot',
  ResourceType: 'Custom::VerdictSnapshot',
  ResourceProperties: { ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:snapshot' },
  ...(requestType === 'Create' ? { RequestType: 'Create' } : { RequestType: 'Delete', PhysicalResourceId: 'run-once' }),
});

const answered = (status: 'SUCCESS' | 'FAILED', reason?: string) => [
  {
    url: 'https://cloudformation-custom-resource-response.example/answer?signature=1',
    answer: {
      Status: status,
      ...(reason === undefined ? {} : { Reason: reason }),
      PhysicalResourceId: 'run-once',
      StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/AssetProtection-dev/1',
      RequestId: 'request-1',
      LogicalResourceId: 'VerdictSnapshotsFirstSnapshot',
    },
  },
];

describe('the verdict snapshot function', () => {
  it('stores a snapshot of the index when the schedule invokes it', async () => {
    const { store, saved } = memorySnapshots();
    const { handler, answers } = handlerWith(store);

    const summary = await handler({});

    expect(summary).toEqual({ position: '1772359197000', version: '1772359137000', keys: 1, rebuilt: true });
    expect(saved.map((snapshot) => [snapshot.keys, snapshot.states])).toEqual([[['acme-airdrop.xyz'], [10]]]);
    expect(answers).toEqual([]);
  });

  it('stores the first snapshot and answers SUCCESS when CloudFormation creates its resource', async () => {
    const { store, saved } = memorySnapshots();
    const { handler, answers } = handlerWith(store);

    await handler(stackEvent('Create'));

    expect(saved.map((snapshot) => snapshot.keys)).toEqual([['acme-airdrop.xyz']]);
    expect(answers).toEqual(answered('SUCCESS'));
  });

  it('answers FAILED with the reason, and does not throw, when the snapshot cannot be stored', async () => {
    const { handler, answers } = handlerWith(failingSnapshots);

    await handler(stackEvent('Create'));

    expect(answers).toEqual(answered('FAILED', 'Access Denied'));
  });

  it('answers SUCCESS to a delete without taking a snapshot', async () => {
    const { store, saved } = memorySnapshots();
    const { handler, answers } = handlerWith(store);

    await handler(stackEvent('Delete'));

    expect(saved).toEqual([]);
    expect(answers).toEqual(answered('SUCCESS'));
  });
});

describe('the snapshot job and the blocklist', () => {
  it('publishes the snapshot artifact of the new verdict snapshot as the current one', async () => {
    const { store } = memorySnapshots();
    const artifacts = memoryArtifactStore();
    const handler = createHandler({ log, snapshots: store, artifacts, now: () => NOW, answer: async () => {} });

    await handler({});

    const pointer = await artifacts.current();
    const bytes = pointer === undefined ? undefined : await artifacts.get(pointer.token);
    expect(pointer).toMatchObject({ algoVersion: 1, count: 1, position: (await store.latest())?.position });
    expect(bytes && decodeArtifact(bytes)).toEqual({
      kind: 'snapshot',
      algoVersion: 1,
      prefixes: Uint32Array.of(prefixOf(fullHash('acme-airdrop.xyz/'))),
    });
  });
});
