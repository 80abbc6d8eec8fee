/**
 * `npm run bench`: every figure is measured in this run, side by side with its baseline.
 * Budgets are checked here, never in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { ROUTES } from '../../infra/routes.ts';

process.env.TABLE_NAME ??= 'bench-table';
process.env.CURSOR_SECRET ??= 'bench-secret';
process.env.AWS_REGION ??= 'us-east-1';
process.env.LOG_LEVEL ??= 'SILENT';
process.env.LISTS_DIR ??= 'infra/local/lists';
process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';

const OUT = '.bench';
type Row = { name: string; value: string };
const rows: Row[] = [];
const section = (title: string) => rows.push({ name: `── ${title}`, value: '' });
const add = (name: string, value: string) => {
  rows.push({ name, value });
  console.error(`  ${name}: ${value}`);
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Stands in for every Powertools package, to measure a route as it was before Powertools: the
 * same handler with no-op telemetry.
 */
const POWERTOOLS_STUB = `
const noop = () => {};
const middleware = () => ({ before: noop, after: noop, onError: noop });
export class Logger { info() {} warn() {} error() {} debug() {} setLogLevel() {} addContext() {} }
export class Metrics { addMetric() {} addDimension() {} addDimensions() {} publishStoredMetrics() {} singleMetric() { return this; } }
export const MetricUnit = { Count: 'Count', Milliseconds: 'Milliseconds', Seconds: 'Seconds' };
export const injectLambdaContext = middleware;
export const logMetrics = middleware;
export class SecretsProvider { async get() { return ''; } }
`;
const withoutPowertools: Plugin = {
  name: 'without-powertools',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@aws-lambda-powertools\// }, (args) => ({ path: args.path, namespace: 'stub' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: POWERTOOLS_STUB, loader: 'js' }));
  },
};

const bundle = async (entry: string, outfile: string, plugins: Plugin[] = []) => {
  await build({
    plugins,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    keepNames: true,
    sourcemap: false,
    logLevel: 'silent',
  });
  const bytes = statSync(outfile).size;
  return { bytes, gzip: gzipSync(readFileSync(outfile)).length };
};

/**
 * CPU time (user + system) a fresh Node process spends in `require` of a bundle, process start
 * excluded. Loading is single-threaded, so on an idle machine this is the wall-clock load time;
 * unlike wall-clock time it stays comparable when other work shares the CPUs. stdout, stderr and
 * the console module are set up first, as the Lambda runtime has done before it loads a handler.
 */
const requireTime = (file: string) => {
  const script = `process.stdout;process.stderr;require('node:console');const c=process.cpuUsage();require(${JSON.stringify(file)});const d=process.cpuUsage(c);console.log((d.user+d.system)/1e3)`;
  return Number(execFileSync(process.execPath, ['-e', script], { env: process.env, encoding: 'utf8' }).trim());
};

/** Median time to `require` a bundle in a fresh Node process (process start excluded). */
const loadTime = (file: string, runs = 15) => median(Array.from({ length: runs }, () => requireTime(file)));

/**
 * Median load times of several bundles measured in turns (a, b, c, a, b, c, …), so that a busy
 * machine slows each of them alike and their differences stay comparable.
 */
const loadTimes = (files: string[], runs = 15): number[] => {
  const times = files.map((): number[] => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, file] of files.entries()) times[i]?.push(requireTime(file));
  }
  return times.map(median);
};

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Over the budget when a route loads more than this much slower than the SDK-only bundle. */
const COLD_LOAD_BUDGET_MS = 10;

const benchBundles = async () => {
  section(
    'bundles and cold load (esbuild as deployed: minified CJS, SDK bundled; CPU ms of require, median of 15 fresh processes)',
  );
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const dir = `${process.cwd()}/${OUT}`;
  writeFileSync(`${OUT}/empty.ts`, 'export const handler = async () => ({ statusCode: 200 });\n');
  const empty = await bundle(`${OUT}/empty.ts`, `${dir}/empty.js`);
  const emptyLoad = loadTime(`${dir}/empty.js`);
  add('empty module', `${kb(empty.bytes)}, load ${emptyLoad.toFixed(1)} ms`);
  writeFileSync(
    `${OUT}/sdk-only.ts`,
    "export { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n",
  );
  const sdk = await bundle(`${OUT}/sdk-only.ts`, `${dir}/sdk-only.js`);
  add('SDK-only baseline (client-dynamodb + lib-dynamodb)', `${kb(sdk.bytes)} (${kb(sdk.gzip)} gzip)`);
  const figure = (size: { bytes: number; gzip: number }, load: number, sdkLoad: number) => {
    const over = load - sdkLoad;
    const verdict = over <= COLD_LOAD_BUDGET_MS ? 'within budget' : 'OVER budget';
    return `${kb(size.bytes)} (${kb(size.gzip)} gzip), load ${load.toFixed(1)} ms (${over >= 0 ? '+' : ''}${over.toFixed(1)} ms vs SDK-only, ${verdict})`;
  };
  for (const route of ROUTES) {
    const before = await bundle(route.entry, `${dir}/${route.name}.before.js`, [withoutPowertools]);
    const after = await bundle(route.entry, `${dir}/${route.name}.js`);
    writeFileSync(
      `${OUT}/${route.name}.traced.ts`,
      `import { Tracer } from '@aws-lambda-powertools/tracer';\nexport const tracer = new Tracer();\nexport * from '${process.cwd()}/${route.entry}';\n`,
    );
    const traced = await bundle(`${OUT}/${route.name}.traced.ts`, `${dir}/${route.name}.traced.js`);
    const [sdkLoad = 0, beforeLoad = 0, afterLoad = 0, tracedLoad = 0] = loadTimes(
      ['sdk-only', `${route.name}.before`, route.name, `${route.name}.traced`].map((name) => `${dir}/${name}.js`),
    );
    add(
      `${route.name}: SDK-only in the same turns`,
      `load ${sdkLoad.toFixed(1)} ms (budget ${(sdkLoad + COLD_LOAD_BUDGET_MS).toFixed(1)} ms)`,
    );
    add(`${route.name} without Powertools`, figure(before, beforeLoad, sdkLoad));
    add(`${route.name} with logger + metrics (deployed)`, figure(after, afterLoad, sdkLoad));
    add(`${route.name} + Powertools tracer`, figure(traced, tracedLoad, sdkLoad));
  }
};

const benchHandlerOverhead = async () => {
  section('in-process handler overhead (DynamoDB mocked; µs per invocation, median of 5 rounds × 20,000)');
  const { mockClient } = await import('aws-sdk-client-mock');
  const { DynamoDBDocumentClient, GetCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const ddb = mockClient(DynamoDBDocumentClient);
  ddb.on(GetCommand).resolves({ Item: { kind: 'organization', orgId: 'org-1' } });
  ddb.on(QueryCommand).resolves({ Items: [{ id: 1, name: 'A', assetCount: 2 }] });
  const { handler } = await import('../../functions/asset-groups/list.ts');
  const { apiEvent, context } = await import('../fixtures/api-event.ts');
  const { json } = await import('../../shared/http/json.ts');
  const event = apiEvent({ apiKey: 'bench-key-0123456789' });
  const invoke = handler as unknown as (e: typeof event, c: typeof context) => Promise<unknown>;
  const bare = async (_e: typeof event) => json(200, { groups: [{ id: 1, name: 'A', assetCount: 2 }] });

  const measure = async (fn: () => Promise<unknown>) => {
    const rounds: number[] = [];
    for (let round = 0; round < 5; round++) {
      const n = 20_000;
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await fn();
      rounds.push(Number(process.hrtime.bigint() - start) / 1e3 / n);
    }
    return median(rounds);
  };
  await measure(() => invoke(structuredClone(event), context));
  const bareUs = await measure(() => bare(structuredClone(event)));
  const fullUs = await measure(() => invoke(structuredClone(event), context));
  add('bare handler (same event copy + json())', `${bareUs.toFixed(2)} µs`);
  add(
    'list-asset-groups through middy (auth cached, validate, errors; mocked SDK send)',
    `${fullUs.toFixed(2)} µs = +${(fullUs - bareUs).toFixed(2)} µs over bare`,
  );
  ddb.restore();
};

const optional = async <T>(path: string, run: (module: T) => Promise<Row[]>) => {
  if (!existsSync(new URL(path, import.meta.url))) return;
  const module = (await import(path)) as T;
  for (const row of await run(module)) add(row.name, row.value);
};

/** Runs outage.ts in its own process: its handlers reach the table through a proxy of their own. */
const benchOutage = (endpoint: string): Row[] => {
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'test/bench/outage.ts', endpoint], {
    env: process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '[]') as Row[];
};

/** The sections of the bench, in the order they run; `npm run bench -- <name> …` runs only those named. */
const SECTIONS: Record<string, (endpoint: string) => Promise<void>> = {
  overhead: () => benchHandlerOverhead(),
  metrics: async (endpoint) => {
    section('metrics (DynamoDB Local)');
    await optional<{ benchMetrics: (endpoint: string) => Promise<Row[]> }>('./metrics.ts', (m) =>
      m.benchMetrics(endpoint),
    );
  },
  'bulk-add': async (endpoint) => {
    section('bulk add (DynamoDB Local, same run; the floor writes the same items with plain BatchWriteItem)');
    await optional<{ benchBulkAdd: (endpoint: string) => Promise<Row[]> }>('./bulk-add.ts', (m) =>
      m.benchBulkAdd(endpoint),
    );
  },
  check: async (endpoint) => {
    section('asset check');
    await optional<{ benchCheck: () => Promise<Row[]> }>('./check.ts', (m) => m.benchCheck());
    await optional<{ benchGateway: (endpoint: string) => Promise<Row[]> }>('./gateway.ts', (m) =>
      m.benchGateway(endpoint),
    );
  },
  feed: async (endpoint) => {
    section(
      'verdict feed (freshness and reads through the local gateway on DynamoDB Local; a 1,000,000-entry replica in a process of its own)',
    );
    await optional<{ benchFeed: (endpoint: string) => Promise<Row[]> }>('./feed.ts', (m) => m.benchFeed(endpoint));
  },
  outage: async (endpoint) => {
    section('store outage (local gateway through a stalling proxy; production budget) and group delete');
    for (const row of benchOutage(endpoint)) add(row.name, row.value);
  },
};

const main = async () => {
  const names = ['bundles', ...Object.keys(SECTIONS)];
  const chosen = process.argv.slice(2);
  const unknown = chosen.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new Error(`Unknown bench section ${unknown.join(', ')}; sections: ${names.join(', ')}`);
  const runs = (name: string) => chosen.length === 0 || chosen.includes(name);
  console.error('Running benchmarks (progress below; the table is printed at the end) ...');
  // Handlers publish their metrics (EMF) on stdout as in Lambda: measured, then dropped, until the table is printed.
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  // First, as they need no database: the figures a busy machine most often keeps from starting it.
  if (runs('bundles')) await benchBundles();
  const { startDynamo } = await import('../../infra/local/dynamo.ts');
  const dynamo = await startDynamo();
  // Before any handler module is imported: config and the default client are read once per process.
  process.env.TABLE_NAME = 'bench-gateway';
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  try {
    for (const [name, run] of Object.entries(SECTIONS)) if (runs(name)) await run(dynamo.endpoint);
  } finally {
    process.stdout.write = write;
    await dynamo.stop();
  }
  const width = Math.max(...rows.map((row) => row.name.length));
  console.log('');
  for (const row of rows) console.log(row.value ? `${row.name.padEnd(width)}  ${row.value}` : `\n${row.name}`);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
