/**
 * `npm run bench -- cost`: what a million requests cost, by route class, from figures measured
 * here: the log bytes a function writes, its billed duration and its DynamoDB units, priced at
 * the list prices below. Each class runs in a process of its own, as a Lambda container would:
 * the real handler in-process, with the production logger settings (LOG_LEVEL INFO, a deployed
 * function's context and environment, the access log sample rate at its Lambda default), against
 * DynamoDB Local through a proxy that asks every command for its consumed capacity.
 * Usage (one class, as `npm run bench` runs it): tsx test/bench/cost.ts <DynamoDB Local endpoint> <class>
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

type Row = { name: string; value: string };

/** List prices, us-east-1, as AWS's pricing pages gave them on `asOf` (not checked since): check them before relying on a figure. */
const PRICES = {
  asOf: '2025-06-01',
  /** Lambda, arm64: per GB-second (first 7.5 billion GB-s a month), and per request. */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** API Gateway HTTP API: per request up to 512 KB (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** CloudWatch Logs ingestion (Standard class; Lambda logs' first 10 TB a month), per GB (10^9 bytes, the higher reading). */
  logsIngestionGb: 0.5,
  /** X-Ray: per trace recorded. */
  xrayTrace: 5.0 / 1e6,
  /** DynamoDB on demand: per read request unit and per write request unit. */
  dynamoRead: 0.125 / 1e6,
  dynamoWrite: 0.625 / 1e6,
};

/**
 * X-Ray records what Lambda's sampling of an actively traced function samples: 1 request a second
 * (its reservoir) and 5% of the rest, here at 100 requests a second in all (5.95%). The check-class
 * routes (`untraced`) are PassThrough: HTTP APIs never send a sampled trace header, so they record none.
 */
const XRAY = { reservoirPerSecond: 1, fixedRate: 0.05, requestsPerSecond: 100 };
const tracedShare = () =>
  (XRAY.reservoirPerSecond + XRAY.fixedRate * (XRAY.requestsPerSecond - XRAY.reservoirPerSecond)) /
  XRAY.requestsPerSecond;

/**
 * Requests measured per class (after a warm-up), one at a time as in a Lambda container, and no
 * more than RATE a second: the container takes the whole assumed traffic, so what it does once a
 * second (the check's replica polls the verdict log) is spread over that many requests.
 */
const REQUESTS = 2_000;
const WARMUP = 50;
const RATE = XRAY.requestsPerSecond;
const KEY = 'bench-cost-key-0123456789abcdef';
const ORG = 'bench-cost';

type ClassName = 'check' | 'read' | 'write';
const CLASSES: Record<ClassName, { route: string; entry: string; label: string }> = {
  check: { route: 'check-asset', entry: 'functions/check/check.ts', label: 'check (POST /asset/check)' },
  read: { route: 'list-assets', entry: 'functions/assets/list.ts', label: 'read (GET /organization/assets)' },
  write: {
    route: 'create-assets',
    entry: 'functions/assets/create.ts',
    label: 'write (POST /organization/assets, one asset)',
  },
};

type Measured = {
  requests: number;
  statuses: Record<string, number>;
  durationMs: { mean: number; p50: number; p99: number };
  billedMs: number;
  events: { access: number; emf: number; other: number };
  bytes: { access: number; emf: number; other: number };
  longestAccessLine: number;
  responseBytes: number;
  dynamo: { calls: Record<string, number>; read: number; write: number };
  sampleRate: number;
  seconds: number;
};

// ───────────────────────────── one class, in its own process ─────────────────────────────

/**
 * Write units of a TransactWriteItems, which DynamoDB Local under-reports for several items (three
 * small puts: 2 units). Counted as Local counts a transaction of one item: 2 units per KB for the
 * item and for each index it writes.
 */
const transactionWriteUnits = (
  input: { TransactItems?: Record<string, Record<string, unknown>>[] },
  indexes: { partitionKey: string; sortKey: string }[],
) => {
  let units = 0;
  for (const entry of input.TransactItems ?? []) {
    const [kind, operation] = Object.entries(entry)[0] ?? [];
    const item = (operation?.Item ?? {}) as Record<string, unknown>;
    // The DynamoDB JSON of an item is a little larger than the item: an upper bound, in 1 KB units.
    const kb = Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));
    units += 2 * kb;
    const named = JSON.stringify(operation?.ExpressionAttributeNames ?? {});
    for (const index of indexes) {
      const written =
        kind === 'Put'
          ? index.partitionKey in item && index.sortKey in item
          : kind === 'Update' && named.includes(`"${index.partitionKey}"`);
      if (written) units += 2 * kb;
    }
  }
  return units;
};

/**
 * A read that finds nothing still uses the minimum unit per key (GetItem, BatchGetItem) or per
 * call (Query, Scan), 1 when consistent, else 0.5; DynamoDB Local reports 0 for it.
 */
const minimumReadUnits = (operation: string, input: Record<string, unknown>) => {
  const unit = (consistent: unknown) => (consistent === true ? 1 : 0.5);
  if (operation !== 'BatchGetItem') return unit(input.ConsistentRead);
  const tables = Object.values(
    (input.RequestItems ?? {}) as Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }>,
  );
  return tables.reduce((sum, table) => sum + (table.Keys?.length ?? 0) * unit(table.ConsistentRead), 0);
};

type Capacity = { CapacityUnits?: number };
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

/**
 * An HTTP proxy in front of DynamoDB Local that adds ReturnConsumedCapacity to every command and
 * adds up the units answered, by reads and writes, while `counting` is on.
 */
const capacityProxy = async (target: string, indexes: { partitionKey: string; sortKey: string }[]) => {
  const upstream = new URL(target);
  const tally = { counting: false, calls: {} as Record<string, number>, read: 0, write: 0 };
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const body = Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, 'content-length': String(body.length) },
        },
        (answer: IncomingMessage) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const text = Buffer.concat(parts);
            if (tally.counting) {
              tally.calls[operation] = (tally.calls[operation] ?? 0) + 1;
              const consumed = (
                JSON.parse(text.toString('utf8') || '{}') as { ConsumedCapacity?: Capacity | Capacity[] }
              ).ConsumedCapacity;
              const answered = [consumed ?? []].flat().reduce((sum, { CapacityUnits = 0 }) => sum + CapacityUnits, 0);
              if (operation === 'TransactWriteItems') tally.write += transactionWriteUnits(input as never, indexes);
              else if (READS.has(operation)) tally.read += Math.max(answered, minimumReadUnits(operation, input));
              else tally.write += answered;
            }
            outgoing.writeHead(answer.statusCode ?? 500, answer.headers).end(text);
          });
        },
      );
      forwarded.on('error', (error) => outgoing.destroy(error));
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tally,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** A deployed function's name: CloudFormation's, after its stack and construct, 64 characters. */
const deployedName = (route: string) =>
  `asset-protection-prod-Area-${route.replace(/-/g, '')}Function4C1B9D2E-Xk2bLmN9QpRsTuVw`.slice(0, 64);

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const runClass = async (endpoint: string, name: ClassName): Promise<Measured> => {
  const { route, entry } = CLASSES[name];
  const { ROUTES } = await import('../../infra/routes.ts');
  const declared = ROUTES.find((candidate) => candidate.name === route);
  if (!declared) throw new Error(`No route ${route}`);
  const memory = String(declared.memorySize ?? 512);
  const functionName = deployedName(route);
  const tableName = `bench-cost-${name}`;

  // The environment Lambda and the stack give the function, set before any module of it loads.
  const env = process.env;
  Object.assign(env, {
    LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_DISABLED: 'false',
    SERVICE_NAME: 'asset-protection-prod',
    ROUTE_NAME: route,
    ROUTE_AREA: declared.area,
    TABLE_NAME: tableName,
    AWS_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    CURSOR_SECRET: 'bench-cost-cursor-secret',
    LISTS_DIR: 'infra/local/lists',
  });
  for (const unset of ['ACCESS_LOG_SAMPLE_RATE', 'POWERTOOLS_DEV', 'VERDICTS_DIR', 'VERDICTS_BUCKET'])
    delete env[unset];

  const { ensureTable } = await import('../../infra/local/dynamo.ts');
  const { TABLE_DEFINITION } = await import('../../infra/table-definition.ts');
  const { createDocumentClient } = await import('../../shared/db/client.ts');
  const { seed, seedBlockedThreat } = await import('../fixtures/seed.ts');
  await ensureTable(endpoint, tableName);
  const db = createDocumentClient(endpoint);
  await seed(db, tableName, {
    organizations: [{ slug: ORG, name: 'Bench Cost' }],
    apiKeys: [{ key: KEY, organization: ORG }],
    assets: Array.from({ length: 20 }, (_, i) => ({
      organization: ORG,
      content: `https://bench-brand-${i}.example`,
      type: 'URL',
    })),
  });
  await seedBlockedThreat(db, tableName, ORG, 't-bench-cost');

  const proxy = await capacityProxy(endpoint, TABLE_DEFINITION.indexes);
  env.DYNAMODB_ENDPOINT = proxy.endpoint;
  const { config } = await import('../../shared/config.ts');
  const { handler } = (await import(`../../${entry}`)) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode?: number; body?: string }>;
  };

  const contents = [
    (i: number) => `https://login.bench-brand-airdrop.example/claim?i=${i}`,
    (i: number) => `https://bench-brand-${i % 20}.example/page/${i}`,
    (i: number) => `https://unknown-${i % 200}.example.org/`,
  ];
  const requests: Record<ClassName, (i: number) => { method: string; path: string; body?: unknown }> = {
    check: (i) => ({ method: 'POST', path: '/asset/check', body: { content: contents[i % 3]?.(i) } }),
    read: () => ({ method: 'GET', path: '/organization/assets' }),
    write: (i) => ({
      method: 'POST',
      path: '/organization/assets',
      body: { assets: [{ content: `https://bench-new-${process.pid}-${i}.example` }] },
    }),
  };
  const eventOf = (i: number) => {
    const { method, path, body } = requests[name](i);
    const now = new Date();
    return {
      version: '2.0',
      routeKey: `${method} /v2${path}`,
      rawPath: `/v2${path}`,
      rawQueryString: '',
      headers: {
        'x-api-key': KEY,
        host: 'api.example.com',
        'user-agent': 'bench-cost/1.0',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: {
        accountId: '123456789012',
        apiId: 'a1b2c3d4e5',
        domainName: 'api.example.com',
        domainPrefix: 'api',
        http: {
          method,
          path: `/v2${path}`,
          protocol: 'HTTP/1.1',
          sourceIp: '203.0.113.45',
          userAgent: 'bench-cost/1.0',
        },
        requestId: randomBytes(12).toString('base64').slice(0, 15).concat('='),
        routeKey: `${method} /v2${path}`,
        stage: '$default',
        time: now.toISOString(),
        timeEpoch: now.getTime(),
      },
    };
  };
  const contextOf = () => ({
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: memory,
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/11/26/[$LATEST]${hex(16)}`,
    getRemainingTimeInMillis: () => 9_000,
  });

  // Everything the function writes is captured; progress and the result go to the real streams.
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  let captured: string[] = [];
  const capture = ((chunk: string | Uint8Array) => {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  const progress = (text: string) => stderr(`    cost/${name}: ${text}\n`);

  let i = 0;
  let next = performance.now();
  const invoke = async () => {
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    next = Math.max(next, performance.now()) + 1000 / RATE;
    // Lambda sets the trace header of each invocation; X-Ray decides whether it is sampled.
    env._X_AMZN_TRACE_ID = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${hex(12)};Parent=${hex(8)};Sampled=0;Lineage=1:${hex(4)}:0`;
    const started = performance.now();
    const response = await handler(eventOf(i++), contextOf());
    return { ms: performance.now() - started, response };
  };
  /** Invokes until one invocation publishes the metrics the container held. */
  const untilPublished = async (also?: (ms: number, response: { statusCode?: number; body?: string }) => void) => {
    for (;;) {
      const before = captured.length;
      const { ms, response } = await invoke();
      also?.(ms, response);
      if (captured.slice(before).some((chunk) => chunk.includes('"_aws"'))) return;
    }
  };

  try {
    for (let n = 0; n < WARMUP; n++) await invoke();
    await untilPublished();
    progress(`warm (${i} requests); measuring ${REQUESTS} ...`);
    captured = [];
    proxy.tally.counting = true;
    const durations: number[] = [];
    const statuses: Record<string, number> = {};
    let responseBytes = 0;
    const record = (ms: number, response: { statusCode?: number; body?: string }) => {
      durations.push(ms);
      const status = String(response.statusCode ?? 200);
      statuses[status] = (statuses[status] ?? 0) + 1;
      responseBytes += Buffer.byteLength(response.body ?? '');
    };
    const began = performance.now();
    while (durations.length < REQUESTS) {
      const { ms, response } = await invoke();
      record(ms, response);
      if (durations.length % 500 === 0) progress(`${durations.length} / ${REQUESTS}`);
    }
    // Up to the publication of the figures the measured requests left held, so that all of them are counted.
    await untilPublished(record);
    proxy.tally.counting = false;
    const seconds = (performance.now() - began) / 1000;

    const lines = captured.join('').split('\n').filter(Boolean);
    const events = { access: 0, emf: 0, other: 0 };
    const bytes = { access: 0, emf: 0, other: 0 };
    let longestAccessLine = 0;
    for (const line of lines) {
      const size = Buffer.byteLength(line);
      const kind = line.includes('"_aws"') ? 'emf' : line.includes('"message":"access"') ? 'access' : 'other';
      events[kind]++;
      bytes[kind] += size;
      if (kind === 'access') longestAccessLine = Math.max(longestAccessLine, size);
    }
    const sorted = [...durations].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
    return {
      requests: durations.length,
      statuses,
      durationMs: { mean: durations.reduce((a, b) => a + b, 0) / durations.length, p50: at(0.5), p99: at(0.99) },
      // Lambda bills each invocation's duration rounded up to the millisecond.
      billedMs: durations.reduce((sum, ms) => sum + Math.max(1, Math.ceil(ms)), 0) / durations.length,
      events,
      bytes,
      longestAccessLine,
      responseBytes: responseBytes / durations.length,
      dynamo: { calls: proxy.tally.calls, read: proxy.tally.read, write: proxy.tally.write },
      sampleRate: config.accessLogSampleRate,
      seconds,
    };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
    await proxy.close();
  }
};

// ───────────────────────────── the section, in `npm run bench` ─────────────────────────────

/** The bytes of the API stage's access line for one request of the class, from the stage's own format. */
const stageAccessLineBytes = async (method: string, path: string, responseBytes: number) => {
  const { Stack } = await import('aws-cdk-lib');
  const { apiAccessLog, apiAccessLogGroup } = await import('../../infra/observability.ts');
  const stack = new Stack();
  const format =
    apiAccessLog(apiAccessLogGroup(stack, 'Logs', false), 'asset-protection-prod').format?.toString() ?? '{}';
  const sample: Record<string, string> = {
    '$context.requestId': 'cKx9aiWqIAMEJgw=',
    '$context.requestTime': '26/Nov/2026:18:41:20 +0000',
    '$context.stage': '$default',
    '$context.routeKey': `${method} /v2${path}`,
    '$context.httpMethod': method,
    '$context.path': `/v2${path}`,
    '$context.status': '200',
    '$context.responseLatency': '12',
    '$context.integrationLatency': '9',
    '$context.integrationStatus': '200',
    '$context.integrationErrorMessage': '-',
    '$context.error.message': '-',
    '$context.identity.sourceIp': '203.0.113.45',
    '$context.responseLength': String(Math.round(responseBytes)),
  };
  const line = format.replace(/\$context\.[A-Za-z.]+/g, (variable) => sample[variable] ?? '-');
  return Buffer.byteLength(line);
};

const money = (dollars: number) => dollars.toFixed(3).padStart(7);
const fixed = (value: number, digits: number) => value.toFixed(digits);

/**
 * Runs each class in a child process (`tsx test/bench/cost.ts <endpoint> <class>`), then prices
 * the measured figures per million requests.
 */
export async function benchCost(endpoint: string): Promise<Row[]> {
  const { ROUTES } = await import('../../infra/routes.ts');
  const rows: Row[] = [
    {
      name: 'assumptions',
      value:
        'bytes are those the function writes (access lines, EMF records, other lines); Lambda’s START/END/REPORT lines are off (JSON log format, system log level WARN). ' +
        `X-Ray traces ${(tracedShare() * 100).toFixed(2)}% of the requests of actively traced routes (Lambda's ${XRAY.reservoirPerSecond}/s + ${XRAY.fixedRate * 100}% at ${XRAY.requestsPerSecond} requests/s) and none of the check class (PassThrough). ` +
        `Duration as measured on this machine, one request at a time, at most ${RATE} a second, DynamoDB Local on loopback; ` +
        'DynamoDB units as DynamoDB Local reports them, except where noted in cost.ts (transactions, reads that find nothing).',
    },
  ];
  const header = ['API GW', 'λ req', 'λ time', 'fn logs', 'API log', 'X-Ray', 'DynamoDB', 'total'];
  const table: Row[] = [{ name: '$ per million requests', value: header.map((h) => h.padStart(9)).join('') }];
  const measuredRows: Row[] = [];
  for (const name of Object.keys(CLASSES) as ClassName[]) {
    const { route, label } = CLASSES[name];
    const declared = ROUTES.find((candidate) => candidate.name === route);
    if (!declared) throw new Error(`No route ${route}`);
    const memoryMb = declared.memorySize ?? 512;
    console.error(`  cost/${name}: ${route}, ${memoryMb} MB, ${REQUESTS} requests after ${WARMUP} to warm up`);
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'test/bench/cost.ts', endpoint, name], {
      env: process.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const m = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Measured;
    const per = (total: number) => total / m.requests;
    const events = per(m.events.access + m.events.emf + m.events.other);
    const logBytes = per(m.bytes.access + m.bytes.emf + m.bytes.other);
    const stageLine = await stageAccessLineBytes(declared.method, declared.path, m.responseBytes);
    const million = 1e6;
    const cost = {
      api: PRICES.httpApiRequest * million,
      request: PRICES.lambdaRequest * million,
      duration: (m.billedMs / 1000) * (memoryMb / 1024) * PRICES.lambdaGbSecond * million,
      logs: ((logBytes * million) / 1e9) * PRICES.logsIngestionGb,
      stageLog: ((stageLine * million) / 1e9) * PRICES.logsIngestionGb,
      xray: (declared.untraced ? 0 : tracedShare()) * PRICES.xrayTrace * million,
      dynamo: (per(m.dynamo.read) * PRICES.dynamoRead + per(m.dynamo.write) * PRICES.dynamoWrite) * million,
    };
    const total = Object.values(cost).reduce((a, b) => a + b, 0);
    table.push({
      name: `${label}, ${memoryMb} MB`,
      value: [cost.api, cost.request, cost.duration, cost.logs, cost.stageLog, cost.xray, cost.dynamo, total]
        .map((dollars) => money(dollars).padStart(9))
        .join(''),
    });
    const calls = Object.entries(m.dynamo.calls)
      .map(([operation, count]) => `${operation} ${fixed(per(count), 3)}`)
      .join(', ');
    measuredRows.push(
      {
        name: `${name}: log events / bytes per request`,
        value: `${fixed(events, 4)} events, ${fixed(logBytes, 1)} B (access lines ${fixed(per(m.events.access), 4)} × ≤ ${m.longestAccessLine} B at sample rate ${m.sampleRate}; EMF records ${fixed(per(m.events.emf), 4)}, ${fixed(per(m.bytes.emf), 1)} B; other lines ${fixed(per(m.events.other), 4)}, ${fixed(per(m.bytes.other), 1)} B)${name === 'check' ? `; goal ≤ 1 event, ≤ 400 B: ${events <= 1 && logBytes <= 400 ? 'met' : 'MISSED'}` : ''}`,
      },
      {
        name: `${name}: duration (${m.requests} requests in ${fixed(m.seconds, 1)} s; ${Object.entries(m.statuses)
          .map(([status, count]) => `${count}× ${status}`)
          .join(', ')})`,
        value: `mean ${fixed(m.durationMs.mean, 2)} ms (p50 ${fixed(m.durationMs.p50, 2)}, p99 ${fixed(m.durationMs.p99, 2)}) → billed ${fixed(m.billedMs, 2)} ms at ${memoryMb} MB`,
      },
      {
        name: `${name}: DynamoDB per request`,
        value: `${fixed(per(m.dynamo.read), 4)} RRU, ${fixed(per(m.dynamo.write), 4)} WRU (calls: ${calls || 'none'})`,
      },
      {
        name: `${name}: API stage access line`,
        value: `1 event, ${stageLine} B per request (infra/observability.ts format)`,
      },
    );
    if (name === 'check') {
      const goal = 1.5;
      measuredRows.push({
        name: 'check: all-in per million (goal ≤ $1.5)',
        value: `$${total.toFixed(3)}: ${total <= goal ? 'met' : 'MISSED'}; without the API stage's access log $${(total - cost.stageLog).toFixed(3)}`,
      });
    }
  }
  return [
    ...rows,
    ...measuredRows,
    ...table,
    {
      name: `list prices used (us-east-1, as of ${PRICES.asOf})`,
      value:
        `Lambda arm64 $${PRICES.lambdaGbSecond}/GB-s, $${PRICES.lambdaRequest * 1e6}/M requests; API Gateway HTTP API $${PRICES.httpApiRequest * 1e6}/M; ` +
        `CloudWatch Logs ingestion $${PRICES.logsIngestionGb}/GB; X-Ray $${PRICES.xrayTrace * 1e6}/M traces; ` +
        `DynamoDB on demand $${PRICES.dynamoRead * 1e6}/M RRU, $${PRICES.dynamoWrite * 1e6}/M WRU`,
    },
    {
      name: 'not per request',
      value:
        'EMF custom metrics ($0.30 a metric a month, first 10,000), log storage ($0.03/GB-month), X-Ray reads, init duration of cold starts',
    },
  ];
}

if (process.argv[1]?.endsWith('test/bench/cost.ts')) {
  const [endpoint, name] = process.argv.slice(2) as [string, ClassName];
  if (!(name in CLASSES)) throw new Error(`Unknown class ${name}; classes: ${Object.keys(CLASSES).join(', ')}`);
  runClass(endpoint, name).then(
    (measured) => {
      process.stdout.write(`${JSON.stringify(measured)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
