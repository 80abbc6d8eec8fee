/**
 * `npm run bench`: every figure is measured in this run, side by side with its baseline.
 * Budgets are checked here, never in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.ts';
import { ROUTES, type Route } from '../../infra/routes.ts';
import { sampleEvent } from '../fixtures/sample-events.ts';

process.env.TABLE_NAME ??= 'bench-table';
process.env.CURSOR_SECRET ??= 'bench-secret';
process.env.AWS_REGION ??= 'us-east-1';
process.env.LOG_LEVEL ??= 'SILENT';
process.env.LISTS_DIR ??= 'infra/local/lists';
process.env.AWS_ACCESS_KEY_ID ??= 'bench';
process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
// One key drives each benchmark far past a stage default: the buckets are still taken (their cost is
// measured), but never run dry.
process.env.RATE_LIMITS ??= 'check=1000000/1000000,read=1000000/1000000,write=1000000/1000000,report=1000000/1000000';

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
export class Tracer { captureAWSv3Client(client) { return client; } }
export const captureLambdaHandler = middleware;
export class BaseProvider { async get() { return ''; } }
`;
const withoutPowertools: Plugin = {
  name: 'without-powertools',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@aws-lambda-powertools\// }, (args) => ({ path: args.path, namespace: 'stub' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: POWERTOOLS_STUB, loader: 'js' }));
  },
};

/** `traced`: built as a traced function's bundle, the tracer inside (infra/bundling.ts). */
const bundle = async (
  entry: string,
  outfile: string,
  plugins: Plugin[] = [],
  options: BuildOptions = {},
  traced = true,
) => {
  await build({ ...esbuildOptions(entry, outfile, traced), plugins, ...options });
  const bytes = statSync(outfile).size;
  return { bytes, gzip: gzipSync(readFileSync(outfile)).length };
};

type Sample = { load: number; first?: number; status?: number };

/**
 * One fresh Node process, started as the function's runtime is (no `NODE_OPTIONS`: the bundle
 * reads its own source map at the first stack trace; `nodeOptions` to measure otherwise), with
 * stdout, stderr and the console module set up first, as the Lambda runtime has done before it
 * loads a handler. It reports the CPU time (user + system)
 * spent in `require` of the bundle and, when given an event, the CPU time of the load plus the
 * first invocation of its handler: the time waiting for DynamoDB Local is not counted, its own
 * work (signing, HTTP, parsing, first-use initialization) is. Unlike wall-clock time, CPU time
 * stays comparable when other work shares the CPUs.
 */
const sample = (file: string, event?: unknown, nodeOptions = ''): Sample => {
  const script = `process.stdout;process.stderr;require('node:console');
const c=process.cpuUsage();const m=require(${JSON.stringify(file)});const d=process.cpuUsage(c);
const ms=(u)=>(u.user+u.system)/1e3;const load=ms(d);const event=${JSON.stringify(event ?? null)};
if(!event){console.log(JSON.stringify({load}));process.exit(0)}
const context={functionName:'bench',functionVersion:'$LATEST',invokedFunctionArn:'arn:aws:lambda:local:000000000000:function:bench',memoryLimitInMB:'512',awsRequestId:'bench-request',logGroupName:'bench',logStreamName:'bench',callbackWaitsForEmptyEventLoop:false,getRemainingTimeInMillis:()=>29000};
Promise.resolve(m.handler(event,context)).then((r)=>{console.log('\\n'+JSON.stringify({load,first:ms(process.cpuUsage(c)),status:r&&r.statusCode}));process.exit(0)});`;
  const output = execFileSync(process.execPath, ['-e', script], {
    // Lambda sets no extra CA file: with one (as on machines behind a proxy), every process reads
    // and parses it as TLS loads, a few milliseconds that vary from run to run.
    env: { ...process.env, NODE_OPTIONS: nodeOptions, NODE_EXTRA_CA_CERTS: undefined },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Sample;
};

/**
 * Median figures of several bundles measured in turns (a, b, c, a, b, c, …), so that a busy
 * machine slows each of them alike and their differences stay comparable.
 */
const samplesInTurns = (runs: { file: string; event?: unknown; nodeOptions?: string }[], turns = 15) => {
  const samples = runs.map((): Sample[] => []);
  for (let turn = 0; turn < turns; turn++) {
    for (const [i, run] of runs.entries()) samples[i]?.push(sample(run.file, run.event, run.nodeOptions));
  }
  return samples.map((list) => ({
    load: median(list.map((s) => s.load)),
    first: median(list.map((s) => s.first ?? Number.NaN)),
    statuses: [...new Set(list.map((s) => s.status))].join('/'),
    loads: list.map((s) => s.load),
    firsts: list.map((s) => s.first ?? Number.NaN),
  }));
};

/**
 * The median of the differences turn by turn: each difference is of two processes started one
 * after the other, so a machine that slows down for a few turns shifts both sides alike. Steadier
 * than the difference of the two medians when the machine is shared.
 */
const pairedDifference = (values: number[], baseline: number[]) =>
  median(values.map((value, turn) => value - (baseline[turn] ?? Number.NaN)));

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(1)} ms`;
const loadAverage = () =>
  `load average ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')} (${cpus().length} CPUs)`;

/** The routes the bundle sections measure: those named on the command line (`npm run bench -- bundles check-asset`), or all. */
let benchedRoutes: readonly Route[] = ROUTES;

/** Turns of each route with the SDK-only bundle: the budget is judged on their median difference. */
const ROUTE_TURNS = 31;

/** Over the budget when a route loads more than this much slower than the SDK-only bundle. */
const COLD_LOAD_BUDGET_MS = 10;

const SDK_ONLY = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const local = { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
export const handler = async () => {
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...local, endpoint: process.env.DYNAMODB_ENDPOINT }));
  await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: 'none', SK: 'none' } }));
  return { statusCode: 200 };
};
`;

/**
 * The bench's bundle directory, with the empty module and the SDK-only baseline built, and the
 * table the first invocations read, seeded with the demo fixture (the keys the sample events carry).
 */
const prepareBundles = async (endpoint: string) => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // CommonJS, as in the function's directory (`/var/task` has no package.json); the project's own is `"type": "module"`.
  writeFileSync(`${OUT}/package.json`, '{ "type": "commonjs" }\n');
  const dir = `${process.cwd()}/${OUT}`;
  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { loadFixture, parseFixture } = await import('../../infra/local/fixture.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  const tableName = process.env.TABLE_NAME as string;
  await ensureTable(endpoint, tableName);
  const demo = parseFixture(JSON.parse(readFileSync('infra/local/demo.json', 'utf8')));
  await loadFixture(createDocumentClient(endpoint), tableName, demo, () => undefined);
  writeFileSync(`${OUT}/empty.ts`, 'export const handler = async () => ({ statusCode: 200 });\n');
  const empty = await bundle(`${OUT}/empty.ts`, `${dir}/empty.js`);
  writeFileSync(`${OUT}/sdk-only.ts`, SDK_ONLY);
  const sdk = await bundle(`${OUT}/sdk-only.ts`, `${dir}/sdk-only.js`);
  // esbuild's default for Node: packages' CommonJS builds (`main`) first, as the functions were bundled before.
  const sdkCommonJs = await bundle(`${OUT}/sdk-only.ts`, `${dir}/sdk-only-cjs.js`, [], {
    mainFields: ['main', 'module'],
  });
  return { dir, empty, sdk, sdkCommonJs };
};

/** `overSdk`: the route's load minus the SDK-only bundle's, turn by turn (`pairedDifference`). */
const figure = (size: { bytes: number; gzip: number }, load: number, overSdk: number) => {
  const verdict = overSdk <= COLD_LOAD_BUDGET_MS ? 'within budget' : 'OVER budget';
  return `${kb(size.bytes)} (${kb(size.gzip)} gzip), load ${load.toFixed(1)} ms (${signed(overSdk)} vs SDK-only, ${verdict})`;
};

/**
 * Cold load and first invocation of every route's bundle, as deployed, beside the SDK-only
 * baseline in the same turns. The first invocation answers the route's sample event from
 * `events/` against DynamoDB Local; the baseline's builds a document client and reads one item.
 */
const benchBundles = async (endpoint: string) => {
  section(
    `bundles: cold load and first invocation (esbuild as deployed: minified CJS, SDK bundled, source map read at the first stack trace; CPU ms, median of 15 fresh processes, ${ROUTE_TURNS} for the routes)`,
  );
  add('machine at the start', loadAverage());
  const { dir, empty, sdk, sdkCommonJs } = await prepareBundles(endpoint);
  const [emptyRun] = samplesInTurns([{ file: `${dir}/empty.js` }]);
  add('empty module', `${kb(empty.bytes)}, load ${emptyRun?.load.toFixed(1)} ms`);
  add(
    'SDK-only baseline (client-dynamodb + lib-dynamodb; first invocation: a client and one GetItem)',
    `${kb(sdk.bytes)} (${kb(sdk.gzip)} gzip)`,
  );
  const [esm, commonJs] = samplesInTurns([{ file: `${dir}/sdk-only.js` }, { file: `${dir}/sdk-only-cjs.js` }]);
  if (esm && commonJs) {
    add(
      "SDK-only bundled from the SDK's ES module builds (as every function is) vs its CommonJS builds (esbuild's default for Node)",
      `${kb(sdk.bytes)}, load ${esm.load.toFixed(1)} ms vs ${kb(sdkCommonJs.bytes)}, load ${commonJs.load.toFixed(1)} ms (${signed(pairedDifference(esm.loads, commonJs.loads))})`,
    );
  }
  const check = ROUTES.find((route) => route.name === 'check-asset');
  if (check) {
    await bundle(check.entry, `${dir}/${check.name}.js`, [], {}, !check.untraced);
    const runs = [`${dir}/sdk-only.js`, `${dir}/${check.name}.js`].flatMap((file) => [
      { file },
      { file, nodeOptions: '--enable-source-maps' },
    ]);
    const [sdkLazy, sdkAtLoad, checkLazy, checkAtLoad] = samplesInTurns(runs);
    if (sdkLazy && sdkAtLoad && checkLazy && checkAtLoad) {
      add(
        'source map read by Node at load (--enable-source-maps) vs at the first stack trace',
        `SDK-only ${sdkAtLoad.load.toFixed(1)} vs ${sdkLazy.load.toFixed(1)} ms (${signed(pairedDifference(sdkAtLoad.loads, sdkLazy.loads))}), ${check.name} ${checkAtLoad.load.toFixed(1)} vs ${checkLazy.load.toFixed(1)} ms (${signed(pairedDifference(checkAtLoad.loads, checkLazy.loads))})`,
      );
    }
  }
  for (const route of benchedRoutes) {
    const size = await bundle(route.entry, `${dir}/${route.name}.js`, [], {}, !route.untraced);
    const [sdkRun, routeRun] = samplesInTurns(
      [
        { file: `${dir}/sdk-only.js`, event: {} },
        { file: `${dir}/${route.name}.js`, event: sampleEvent(route) },
      ],
      ROUTE_TURNS,
    );
    if (!sdkRun || !routeRun) throw new Error(`No samples for ${route.name}`);
    add(
      `${route.name}: SDK-only in the same turns`,
      `load ${sdkRun.load.toFixed(1)} ms (budget ${(sdkRun.load + COLD_LOAD_BUDGET_MS).toFixed(1)} ms), load + first invocation ${sdkRun.first.toFixed(1)} ms`,
    );
    add(`${route.name} (deployed)`, figure(size, routeRun.load, pairedDifference(routeRun.loads, sdkRun.loads)));
    add(
      `${route.name} load + first invocation`,
      `${routeRun.first.toFixed(1)} ms (${signed(pairedDifference(routeRun.firsts, sdkRun.firsts))} vs SDK-only; status ${routeRun.statuses})`,
    );
  }
  add('machine at the end', loadAverage());
};

/** What Powertools costs at load: each route without it (no-op stand-ins), with logger and metrics only, and with the tracer as well. */
const benchPowertools = async (endpoint: string) => {
  section(
    `Powertools at cold load (same bundling; CPU ms of require; a figure is the median of ${ROUTE_TURNS} turn-by-turn differences to the SDK-only bundle)`,
  );
  add('machine at the start', loadAverage());
  const { dir } = await prepareBundles(endpoint);
  for (const route of benchedRoutes) {
    const before = await bundle(route.entry, `${dir}/${route.name}.before.js`, [withoutPowertools]);
    const after = await bundle(route.entry, `${dir}/${route.name}.js`, [], {}, false);
    const traced = await bundle(route.entry, `${dir}/${route.name}.traced.js`, [], {}, true);
    const [sdkRun, beforeRun, afterRun, tracedRun] = samplesInTurns(
      ['sdk-only', `${route.name}.before`, route.name, `${route.name}.traced`].map((name) => ({
        file: `${dir}/${name}.js`,
      })),
      ROUTE_TURNS,
    );
    if (!sdkRun || !beforeRun || !afterRun || !tracedRun) throw new Error(`No samples for ${route.name}`);
    add(
      `${route.name} without Powertools`,
      figure(before, beforeRun.load, pairedDifference(beforeRun.loads, sdkRun.loads)),
    );
    add(
      `${route.name} with logger + metrics${route.untraced ? ' (deployed)' : ''}`,
      figure(after, afterRun.load, pairedDifference(afterRun.loads, sdkRun.loads)),
    );
    add(
      `${route.name} + Powertools tracer${route.untraced ? '' : ' (deployed)'}`,
      figure(traced, tracedRun.load, pairedDifference(tracedRun.loads, sdkRun.loads)),
    );
  }
  add('machine at the end', loadAverage());
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

/** The sections of the bench, in the order they run; `npm run bench -- <name> …` runs only those named (and route names, only those routes). */
const SECTIONS: Record<string, (endpoint: string) => Promise<void>> = {
  bundles: benchBundles,
  powertools: benchPowertools,
  overhead: () => benchHandlerOverhead(),
  metrics: async (endpoint) => {
    section('metrics (DynamoDB Local)');
    await optional<{ benchMetrics: (endpoint: string) => Promise<Row[]> }>('./metrics.ts', (m) =>
      m.benchMetrics(endpoint),
    );
  },
  insights: async (endpoint) => {
    section('insights routes at 10^3 and 10^6 records of one organization (DynamoDB Local, same run)');
    await optional<{ benchInsights: (endpoint: string) => Promise<Row[]> }>('./insights.ts', (m) =>
      m.benchInsights(endpoint),
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
  changelog: async (endpoint) => {
    section('changelog (reads per call in-process, and a neighbour through the local gateway; DynamoDB Local)');
    await optional<{ benchChangelog: (endpoint: string) => Promise<Row[]> }>('./changelog.ts', (m) =>
      m.benchChangelog(endpoint),
    );
  },
  compaction: async () => {
    section('verdict snapshot compaction (synthetic, in a process of its own; no DynamoDB)');
    await optional<{ benchCompaction: () => Promise<Row[]> }>('./compaction.ts', (m) => m.benchCompaction());
  },
  blocklist: async (endpoint) => {
    section(
      'hash-prefix blocklist (synthetic 1,000,000 entries; freshness through the local gateway on DynamoDB Local)',
    );
    await optional<{ benchBlocklist: (endpoint: string) => Promise<Row[]> }>('./blocklist.ts', (m) =>
      m.benchBlocklist(endpoint),
    );
  },
  manifest: async () => {
    section('signed blocklist manifests (Ed25519 JWS; no I/O)');
    await optional<{ benchManifest: () => Promise<Row[]> }>('./manifest.ts', (m) => m.benchManifest());
  },
  cost: async (endpoint) => {
    section('cost per million requests by route class');
    await optional<{ benchCost: (endpoint: string) => Promise<Row[]> }>('./cost.ts', (m) => m.benchCost(endpoint));
  },
  webhooks: async (endpoint) => {
    section('webhooks (local runtime workers on DynamoDB Local, to a receiver on 127.0.0.1 answering 200)');
    await optional<{ benchWebhooks: (endpoint: string) => Promise<Row[]> }>('./webhooks.ts', (m) =>
      m.benchWebhooks(endpoint),
    );
  },
  dispute: async (endpoint) => {
    section('upheld disputes (time until the check answers ALLOWED, local gateway on DynamoDB Local)');
    await optional<{ benchDispute: (endpoint: string) => Promise<Row[]> }>('./dispute.ts', (m) =>
      m.benchDispute(endpoint),
    );
  },
  engine: async () => {
    section('threat engine (offline scoring of one content, no I/O)');
    await optional<{ benchEngine: () => Promise<Row[]> }>('./engine.ts', (m) => m.benchEngine());
  },
  detections: async (endpoint) => {
    section('detections (CT prefilter and parsing, DNS_TWIST permutations; no I/O)');
    await optional<{ benchDetections: () => Promise<Row[]> }>('./detections.ts', (m) => m.benchDetections());
    section('detections through a static-CT log (~100,000 names over loopback HTTP, read, parsed and matched)');
    await optional<{ benchStaticCt: () => Promise<Row[]> }>('./static-ct.ts', (m) => m.benchStaticCt());
    section('detections end to end (a CERTSTREAM run through the local gateway on DynamoDB Local)');
    await optional<{ benchCtPipeline: (endpoint: string) => Promise<Row[]> }>('./ct-pipeline.ts', (m) =>
      m.benchCtPipeline(endpoint),
    );
  },
  taxii: async (endpoint) => {
    section('TAXII objects/ pages at 10^3 and 10^5 indicators (DynamoDB Local, same run)');
    await optional<{ benchTaxii: (endpoint: string) => Promise<Row[]> }>('./taxii.ts', (m) => m.benchTaxii(endpoint));
  },
  outage: async (endpoint) => {
    section('store outage (local gateway through a stalling proxy; production budget) and group delete');
    for (const row of benchOutage(endpoint)) add(row.name, row.value);
  },
};

const main = async () => {
  const names = Object.keys(SECTIONS);
  const args = process.argv.slice(2);
  const routeNames = new Set(ROUTES.map((route) => route.name));
  const chosen = args.filter((name) => !routeNames.has(name));
  const unknown = chosen.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new Error(`Unknown bench section or route ${unknown.join(', ')}; sections: ${names.join(', ')}`);
  }
  const routes = ROUTES.filter((route) => args.includes(route.name));
  if (routes.length > 0) benchedRoutes = routes;
  const runs = (name: string) => chosen.length === 0 || chosen.includes(name);
  console.error('Running benchmarks (progress below; the table is printed at the end) ...');
  // Handlers publish their metrics (EMF) on stdout as in Lambda: measured, then dropped, until the table is printed.
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
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
