/**
 * `npm run bench -- compaction`: one run of the snapshot job on synthetic data, in a process of
 * its own so its peak memory is its own: the stored snapshot read back (gunzip + JSON.parse), compacted
 * with the log since (`compactSnapshot`), and written again (JSON + gzip). 10,000,000 keys and
 * 100,000 changes by default (`BENCH_COMPACTION_KEYS`, `BENCH_COMPACTION_CHANGES` to change them);
 * no DynamoDB.
 */
import { execFileSync } from 'node:child_process';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  BIT,
  compactSnapshot,
  pack,
  positionAt,
  seqOf,
  type VerdictChange,
  type VerdictSnapshot,
  versionOf,
} from '../../shared/domain/verdict-feed/index.ts';

type Row = { name: string; value: string };

const KEYS = Number(process.env.BENCH_COMPACTION_KEYS ?? 10_000_000);
const CHANGES = Number(process.env.BENCH_COMPACTION_CHANGES ?? 100_000);
const NOW = Date.parse('2026-03-01T10:00:00Z');

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const progress = (text: string) => console.error(`    compaction: ${text}`);
const keyOf = (i: number) => `host-${i.toString(36)}.example-phish.com`;
/** The sequence the stored snapshot holds for key `i`. */
const seqAt = (i: number) => 1 + (i % 5);

/** A seeded stream (mulberry32), so every run compacts the same data. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};

const timed = <T>(work: () => T): [T, number] => {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
};

const run = (): Row[] => {
  progress(`building a ${KEYS.toLocaleString('en')}-key snapshot`);
  const keys: string[] = new Array(KEYS);
  const states: number[] = new Array(KEYS);
  const next = random(7);
  for (let i = 0; i < KEYS; i++) {
    keys[i] = keyOf(i);
    states[i] = pack(seqAt(i), next() < 0.9 ? BIT.block : BIT.allow);
    if (i > 0 && i % 2_000_000 === 0) progress(`${i.toLocaleString('en')} keys`);
  }
  const stored: VerdictSnapshot = {
    format: 1,
    position: positionAt(NOW - 300_000),
    version: positionAt(NOW - 300_000),
    createdAt: new Date(NOW - 300_000).toISOString(),
    scannedAt: new Date(NOW - 300_000).toISOString(),
    keys,
    states,
  };
  progress('encoding it as the job stores it (JSON + gzip)');
  let bytes: Buffer | undefined = gzipSync(JSON.stringify(stored), { level: 6 });
  const storedBytes = bytes.length;
  keys.length = 0;
  states.length = 0;

  // Changes since: three quarters to keys held (the next sequence), a quarter to new keys.
  const changes: VerdictChange[] = [];
  for (let n = 0; n < CHANGES; n++) {
    const held = next() < 0.75;
    const i = held ? Math.floor(next() * KEYS) : KEYS + n;
    const at = NOW - 299_000 + Math.floor((n / CHANGES) * 290_000);
    changes.push({
      key: keyOf(i),
      type: 'URL',
      bits: next() < 0.5 ? BIT.block : 0,
      seq: held ? seqAt(i) + 1 : 1,
      version: versionOf(at, i.toString(16).padStart(16, '0'), held ? seqAt(i) + 1 : 1),
      changedAt: new Date(at).toISOString(),
    });
  }
  changes.sort((a, b) => (a.version < b.version ? -1 : 1));
  global.gc?.();
  const before = process.memoryUsage().rss;

  progress(`reading it back (${mb(storedBytes)} gzipped)`);
  const [previous, readMs] = timed(() => JSON.parse(gunzipSync(bytes as Buffer).toString('utf8')) as VerdictSnapshot);
  bytes = undefined;
  progress(`compacting with ${CHANGES.toLocaleString('en')} changes`);
  const [{ snapshot, gaps }, compactMs] = timed(() =>
    compactSnapshot(previous, changes, NOW, new Date(NOW).toISOString()),
  );
  progress('encoding the next snapshot');
  const [written, writeMs] = timed(() => gzipSync(JSON.stringify(snapshot), { level: 6 }));
  const peak = process.resourceUsage().maxRSS * 1024;
  let changed = 0;
  for (let i = 0; i < KEYS; i++) if (seqOf(snapshot.states[i] as number) !== seqAt(i)) changed++;
  return [
    {
      name: `snapshot job on ${KEYS.toLocaleString('en')} keys + ${CHANGES.toLocaleString('en')} changes: read (gunzip + JSON.parse)`,
      value: seconds(readMs),
    },
    {
      name: 'compaction (compactSnapshot: changes by key, one walk of the snapshot)',
      value: `${seconds(compactMs)} (${snapshot.keys.length.toLocaleString('en')} keys after, ${changed.toLocaleString('en')} changed in place, ${gaps} gaps)`,
    },
    { name: 'write (JSON + gzip)', value: `${seconds(writeMs)} (${mb(written.length)} gzipped)` },
    { name: 'whole run (read + compact + write)', value: seconds(readMs + compactMs + writeMs) },
    {
      name: 'peak memory (process max RSS; RSS before reading the snapshot)',
      value: `${mb(peak)} (${mb(before)} before; the function has 2,048 MB at 1M keys, up to 10,240 MB)`,
    },
  ];
};

export async function benchCompaction(): Promise<Row[]> {
  const output = execFileSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=10240', '--import', 'tsx', 'test/bench/compaction.ts'],
    { env: process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as Row[];
}

if (process.argv[1]?.endsWith('compaction.ts')) {
  console.log(JSON.stringify(run()));
}
