import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHandler } from '../../infra/local/gateway.ts';
import { lambdaContext } from '../../infra/local/lambda-context.ts';
import { loadRoutes, type RouteDeclaration } from '../../infra/openapi/document.ts';
import { BASE_PATH, ROUTES, type Route } from '../../infra/routes.ts';
import { webhookRepository } from '../../shared/db/webhook-repository.ts';
import { call } from '../fixtures/api-event.ts';
import { openApiDocument } from '../fixtures/contract.ts';
import { sampleEvent } from '../fixtures/sample-events.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable, tableSnapshot } from '../fixtures/table.ts';

/*
 * Every operation of the API description, aimed at organization Alpha's data by callers that must
 * not reach it: Bravo's key, Alpha's read-only key, a user with no membership in Alpha, and a user
 * whose membership in Alpha is SUSPENDED. The requests are generated: each operation's sample event
 * (events/), its ids and organization fields pointed at Alpha's group, asset, proposal, report,
 * webhook, detection config and scan. Each attempt must be refused (401, 403 or 404, as the route
 * documents) and then have written nothing at all, or answer the caller's own data: no secret of
 * Alpha in the answer and no item of Alpha's written. Alpha's read-only key may read, but every
 * route that writes refuses it with 403 and the table stays as it was. Alpha's own keys (its
 * organization key, or its member's user key where a route wants a user) then send the same
 * requests and get 2xx, so the requests do reach Alpha's data. A route added to the table gets
 * its operation in the description, and is attempted here from its sample event like the others.
 */
const table = await createTestTable('tenancy-generated');
const dir = mkdtempSync(join(tmpdir(), 'tenancy-generated-'));
process.env.WEBHOOK_SECRETS_KEY_FILE = join(dir, 'webhook-secrets.key');
// The webhooks the requests create name a receiver on this machine: no name to resolve, nothing sent.
process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
writeFileSync(join(dir, 'dns.json'), JSON.stringify({ registered: [] }));
process.env.DETECTION_DNS_FIXTURE = join(dir, 'dns.json');

const ALPHA = 'tenant-alpha';
const BRAVO = 'tenant-bravo';
const ALPHA_BRAND = 'tenant-alpha-brand';
/** Every private text of Alpha's holds this; the contents it makes public (a block, an allowlisting) do not. */
const SECRET = 'alpha-secret';
const PENDING_CONTENT = `${SECRET}-pending.xyz`;
const BLOCKED_CONTENT = 'alpha-public-blocked.xyz';
const REVIEW_CONTENT = `${SECRET}-review-target.xyz`;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

const KEYS = {
  alpha: 'tenancy-alpha-key-0123456789',
  alphaMember: 'tenancy-alpha-member-key-0123456789',
  bravo: 'tenancy-bravo-key-0123456789',
  alphaReadOnly: 'tenancy-alpha-read-only-key-0123456789',
  outsider: 'tenancy-outsider-key-0123456789',
  suspended: 'tenancy-suspended-key-0123456789',
};
/** Who attempts to reach Alpha's data, and which key each one presents. */
const ATTACKERS = {
  'Bravo’s key': KEYS.bravo,
  'Alpha’s read-only key': KEYS.alphaReadOnly,
  'a user with no membership in Alpha': KEYS.outsider,
  'a user SUSPENDED in Alpha': KEYS.suspended,
} as const;
type Attacker = keyof typeof ATTACKERS;
const READ_ONLY: Attacker = 'Alpha’s read-only key';

/**
 * Routes that answer without a key, by design, and why; each is still asked about Alpha's data
 * (the report page about Alpha's pending report) and must show none of its secrets.
 */
const PUBLIC_BY_DESIGN: Record<string, string> = {
  'get-openapi': 'the API description: one document for everyone, no organization data',
  'get-docs-page': 'the documentation page, a static file',
  'get-dashboard-page': 'the dashboard page, a static file; it calls the API with the key its user enters',
  'get-static-file': 'the scripts and styles of the pages, static files',
  'get-blocklist-artifact': 'hash prefixes of the service’s public verdicts, no organization data',
  'get-blocklist-keys': 'the public keys that verify blocklist manifests, no organization data',
  'get-report-page':
    'where reportUrl leads: a report’s status and dates, and only the assets whose proposal was approved',
};

/** Alpha's objects the requests are pointed at, found once Alpha's data is written. */
type Targets = {
  groupId: number;
  assetId: number;
  pendingReportId: number;
  pendingAssetId: number;
  review: { proposalId: number; assetId: number };
  webhookId: string;
  configId: number;
  scanId: number;
  /** Alpha's TAXII collections (adds go to `submissions`), an object of `blocked` and a status of an add. */
  taxii: { blocked: string; submissions: string; objectId: string; statusId: string };
};
let targets: Targets;
/** Alpha's numeric ids that only Alpha may know; its texts are found by `SECRET`. */
let secretIds: string[] = [];

type Sample = {
  pathParameters?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  body?: string;
};
type Request = { pathParameters: Record<string, string>; query: Record<string, string>; body: unknown };

/** The fields a request names Alpha's data by, wherever they are (path, query or body), and Alpha's value for each. */
const aimed = (route: Route, field: string, caller: string, sent: unknown): unknown => {
  switch (field) {
    case 'organizationSlug':
    case 'slug':
      return ALPHA;
    case 'brandSlug':
      return ALPHA_BRAND;
    case 'groupId':
      return sent === null ? null : targets.groupId;
    case 'assetId':
      return route.path.includes('{proposalId}') ? targets.review.assetId : targets.assetId;
    case 'proposalId':
      return targets.review.proposalId;
    case 'reportId':
      return targets.pendingReportId;
    case 'id':
      return targets.webhookId;
    case 'configId':
      return targets.configId;
    case 'scanId':
      return targets.scanId;
    case 'collectionId':
      return route.method === 'POST' ? targets.taxii.submissions : targets.taxii.blocked;
    case 'objectId':
      return targets.taxii.objectId;
    case 'statusId':
      return targets.taxii.statusId;
    case 'content':
      return BLOCKED_CONTENT;
    case 'url':
      return 'http://127.0.0.1:9/receiver';
    case 'email':
      return `${caller.replace(/\W+/g, '-')}@tenancy.example`;
    // A changelog position an hour back: within the retention, so the log is read.
    case 'since':
      return String(Date.now() - 3_600_000);
    default:
      return sent;
  }
};

type Schema = { entries?: Record<string, unknown>; wrapped?: Schema; pipe?: Schema[] } | undefined;
/** The fields an object schema names, through the optional and pipe wrappers around it. */
const entriesOf = (schema: Schema): string[] => {
  if (schema?.wrapped) return entriesOf(schema.wrapped);
  if (schema?.pipe) return entriesOf(schema.pipe[0]);
  return Object.keys(schema?.entries ?? {});
};

/** The operation's sample event, its ids and organization pointed at Alpha's data. */
const requestFor = (declared: RouteDeclaration, caller: string): Request => {
  const { route, request } = declared;
  const sample = sampleEvent(route) as Sample | undefined;
  if (sample === undefined) throw new Error(`${route.name}: no sample event in events/ to build its request from`);
  const aim = (fields: Record<string, unknown>, declaredFields: string[]) => {
    const named = new Set([
      ...Object.keys(fields),
      ...declaredFields.filter((f) => f === 'organizationSlug' || f === 'slug'),
    ]);
    return Object.fromEntries([...named].map((field) => [field, aimed(route, field, caller, fields[field])]));
  };
  const sentBody = sample.body ? (JSON.parse(sample.body) as unknown) : undefined;
  const body =
    sentBody !== null && typeof sentBody === 'object' && !Array.isArray(sentBody)
      ? aim(sentBody as Record<string, unknown>, entriesOf(request.body as Schema))
      : request.body && route.method !== 'GET'
        ? aim({}, entriesOf(request.body as Schema))
        : sentBody;
  return {
    pathParameters: Object.fromEntries(
      Object.entries(sample.pathParameters ?? {}).map(([name, value]) => [
        name,
        String(aimed(route, name, caller, value)),
      ]),
    ),
    query: Object.fromEntries(
      Object.entries(aim(sample.queryStringParameters ?? {}, entriesOf(request.queryStringParameters as Schema))).map(
        ([name, value]) => [name, String(value)],
      ),
    ),
    body,
  };
};

const eventOf = (route: Route, request: Request, key: string | undefined): APIGatewayProxyEventV2 => {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(request.pathParameters[name] ?? ''),
  );
  const query = new URLSearchParams(request.query).toString();
  const now = Date.now();
  const text = request.body === undefined ? undefined : JSON.stringify(request.body);
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: `${BASE_PATH}${path}`,
    rawQueryString: query,
    headers: {
      host: 'localhost',
      ...(key === undefined ? {} : { 'x-api-key': key }),
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(Object.keys(request.query).length > 0 ? { queryStringParameters: request.query } : {}),
    ...(Object.keys(request.pathParameters).length > 0 ? { pathParameters: request.pathParameters } : {}),
    ...(text === undefined ? {} : { body: text }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'tenancy',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: route.method,
        path: `${BASE_PATH}${path}`,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'vitest',
      },
      requestId: 'tenancy-request',
      routeKey: `${route.method} ${route.path}`,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
  };
};

type Answer = { status: number; text: string };
/** Runs the route's own handler in process: a keyed route through `call`, which holds the answer to the API description. */
const send = async (route: Route, request: Request, key: string | undefined): Promise<Answer> => {
  const handler = await loadHandler(route.entry);
  const event = eventOf(route, request, key);
  if (route.public) {
    const result = await handler(event, lambdaContext(route.name));
    return typeof result === 'string'
      ? { status: 200, text: result }
      : { status: result.statusCode ?? 200, text: result.body ?? '' };
  }
  const response = await call(handler as never, event);
  return { status: response.statusCode, text: JSON.stringify(response.body ?? null) };
};

/** Alpha's secrets found in an answer, apart from those the request itself carried. */
const leaksIn = (answer: Answer, request: Request): string[] => {
  const sent = JSON.stringify(request);
  const found: string[] = [];
  for (const [text] of answer.text.matchAll(new RegExp(`${SECRET}[\\w.-]*`, 'g'))) {
    if (!sent.includes(text)) found.push(text);
  }
  for (const id of secretIds) if (answer.text.includes(id) && !sent.includes(id)) found.push(id);
  return [...new Set(found)];
};

/** Items that are Alpha's: their keys or attributes name its organization. */
const isAlphas = (item: string) => item.includes(ALPHA);

let declarations: RouteDeclaration[] = [];
/** The operations of the API description (`npm run openapi` writes it from the route table), as `METHOD /path`. */
const operations = Object.entries(openApiDocument.paths).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
);
/** The route each operation is served by, with what its handler declares. */
const operationRoutes = (): RouteDeclaration[] =>
  operations.map((operation) => {
    const found = declarations.find(({ route }) => `${route.method} ${route.path}` === operation);
    if (!found) throw new Error(`${operation}: no route of the route table serves it`);
    return found;
  });
const declaredNamed = (name: string): RouteDeclaration => {
  const found = declarations.find(({ route }) => route.name === name);
  if (!found) throw new Error(`No route ${name}`);
  return found;
};
const routeNamed = (name: string): Route => declaredNamed(name).route;
const attempts: { route: string; attacker: Attacker; status: number }[] = [];
const publicAttempts: { route: string; caller: string; status: number }[] = [];
const problems: string[] = [];

const seedAlpha = async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: ALPHA,
        name: `${SECRET}-organization-name`,
        featureFlags: ['brands-metrics'],
        brands: [{ slug: ALPHA_BRAND, name: `${SECRET}-brand-name` }],
      },
      {
        slug: BRAVO,
        name: 'Bravo',
        featureFlags: ['brands-metrics'],
        brands: [{ slug: 'tenant-bravo-brand', name: 'Bravo Brand' }],
      },
    ],
    users: [
      {
        id: 'u-alpha',
        email: `${SECRET}-member@example.com`,
        memberships: [{ organization: ALPHA, status: 'ACTIVE' }],
      },
      { id: 'u-outsider', email: 'outsider@example.com', memberships: [{ organization: BRAVO, status: 'ACTIVE' }] },
      {
        id: 'u-suspended',
        email: 'suspended@example.com',
        memberships: [{ organization: ALPHA, status: 'SUSPENDED' }],
      },
    ],
    apiKeys: [
      { key: KEYS.alpha, organization: ALPHA },
      { key: KEYS.alphaMember, user: 'u-alpha' },
      { key: KEYS.alphaReadOnly, organization: ALPHA, scopes: ['read'] },
      { key: KEYS.bravo, organization: BRAVO },
      { key: KEYS.outsider, user: 'u-outsider' },
      { key: KEYS.suspended, user: 'u-suspended' },
    ],
    groups: [{ organization: ALPHA, name: `${SECRET}-group` }],
    assets: [
      {
        organization: ALPHA,
        content: 'https://alpha-public-allowed.example',
        type: 'URL',
        status: 'ALLOWED',
        name: `${SECRET}-asset-name`,
        description: `${SECRET}-asset-description`,
        group: `${SECRET}-group`,
        createdAt: hoursAgo(5),
      },
    ],
    reports: [
      {
        organization: ALPHA,
        id: 1790000000000301,
        title: `${SECRET}-pending-title`,
        description: `${SECRET}-pending-description`,
        createdAt: hoursAgo(4),
        assets: [{ content: PENDING_CONTENT, proposalId: 1790000000000311 }],
      },
      {
        organization: ALPHA,
        id: 1790000000000302,
        title: 'Alpha blocking report',
        createdAt: hoursAgo(3),
        assets: [{ content: BLOCKED_CONTENT, proposalId: 1790000000000312 }],
      },
      {
        organization: ALPHA,
        id: 1790000000000303,
        title: `${SECRET}-review-title`,
        createdAt: hoursAgo(2),
        assets: [{ content: REVIEW_CONTENT, proposalId: 1790000000000313 }],
      },
    ],
    reviews: [
      {
        organization: ALPHA,
        proposalId: 1790000000000312,
        decision: 'APPROVE',
        label: 'Brand Impersonation',
        brand: ALPHA_BRAND,
        createdAt: hoursAgo(1),
      },
    ],
  });
  const asAlpha = async (name: string, request: Partial<Request>) => {
    const answer = await send(
      routeNamed(name),
      { pathParameters: {}, query: {}, body: undefined, ...request },
      KEYS.alpha,
    );
    if (answer.status !== 200) throw new Error(`${name} for Alpha: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text);
  };
  const listed = await asAlpha('list-reports', {});
  type Listed = { id: number; title: string; proposals: { id: number; asset: { id: number; content: string } }[] };
  const reports = listed.reports as Listed[];
  const proposalOf = (content: string) => {
    const report = reports.find((r) => r.proposals.some((p) => p.asset.content === content));
    const proposal = report?.proposals.find((p) => p.asset.content === content);
    if (!report || !proposal) throw new Error(`No proposal of ${content}`);
    return { report, proposal };
  };
  const pending = proposalOf(PENDING_CONTENT);
  const review = proposalOf(REVIEW_CONTENT);
  const groups = (await asAlpha('list-asset-groups', {})) as { groups: { id: number }[] };
  const assets = (await asAlpha('list-assets', {})) as { assets: { id: number }[] };
  const webhookId = 'a1b2c3d4e5f60718';
  await webhookRepository(table.db, table.tableName).create({
    id: webhookId,
    orgId: ALPHA,
    url: `https://${SECRET}-hook.example/receiver`,
    description: `${SECRET}-webhook-description`,
    events: ['asset.status-updated'],
    headers: undefined,
    enabled: true,
    createdAt: hoursAgo(1),
    sealedSecret: 'sealed',
  });
  const config = await asAlpha('create-detection-config', {
    body: {
      slug: ALPHA,
      source: 'DNS_TWIST',
      config: { domains: ['alpha-brand.example'] },
      title: `${SECRET}-config-title`,
    },
  });
  const scan = await asAlpha('start-scan', { body: { content: `${SECRET}-scan.xyz`, organizationSlug: ALPHA } });
  const { collections } = (await asAlpha('taxii-list-collections', {})) as {
    collections: { id: string; title: string }[];
  };
  const collectionOf = (title: string) => collections.find((collection) => collection.title === title)?.id ?? '';
  const blocked = await asAlpha('taxii-get-objects', { pathParameters: { collectionId: collectionOf('blocked') } });
  const added = await send(
    routeNamed('taxii-add-objects'),
    {
      pathParameters: { collectionId: collectionOf('submissions') },
      query: {},
      body: { objects: [{ type: 'malware', id: 'malware--0b6e2c1a-4d3f-4a5b-8c7d-9e0f1a2b3c4d' }] },
    },
    KEYS.alpha,
  );
  targets = {
    taxii: {
      blocked: collectionOf('blocked'),
      submissions: collectionOf('submissions'),
      objectId: (blocked.objects as { id: string }[]).at(-1)?.id ?? '',
      statusId: (JSON.parse(added.text) as { id: string }).id,
    },
    groupId: groups.groups[0]?.id ?? 0,
    assetId: assets.assets[0]?.id ?? 0,
    pendingReportId: pending.report.id,
    pendingAssetId: pending.proposal.asset.id,
    review: { proposalId: review.proposal.id, assetId: review.proposal.asset.id },
    webhookId,
    configId: config.id,
    scanId: scan.scanId,
  };
  secretIds = [
    pending.report.id,
    pending.proposal.id,
    pending.proposal.asset.id,
    review.report.id,
    review.proposal.id,
    review.proposal.asset.id,
    webhookId,
    config.id,
    scan.scanId,
  ].map(String);
};

beforeAll(async () => {
  declarations = await loadRoutes();
  await seedAlpha();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `Tenancy: ${operations.length} operations; ${attempts.length + publicAttempts.length} attempts by other callers (${attempts.length} with a key, ${publicAttempts.length} on public routes)`,
  );
});

describe('every operation of the API description, aimed at another organization’s data', () => {
  it('is one route of the route table each, and every route is one of them', () => {
    expect([...operations].sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('lists every route that answers without a key, and only those, with the reason', () => {
    expect(
      ROUTES.filter((route) => route.public)
        .map((route) => route.name)
        .sort(),
    ).toEqual(Object.keys(PUBLIC_BY_DESIGN).sort());
  });

  it('refuses the other callers, or answers them only their own data, and never writes Alpha’s', async () => {
    const keyed = operationRoutes().filter(({ route }) => !route.public);
    let before = await tableSnapshot(table);
    for (const declared of keyed) {
      const { route } = declared;
      for (const [attacker, key] of Object.entries(ATTACKERS) as [Attacker, string][]) {
        const where = `${route.name} by ${attacker}`;
        let request: Request;
        let answer: Answer;
        try {
          request = requestFor(declared, attacker);
          answer = await send(route, request, key);
        } catch (error) {
          problems.push(`${where}: ${(error as Error).message.split('\n')[0]}`);
          before = await tableSnapshot(table);
          continue;
        }
        attempts.push({ route: route.name, attacker, status: answer.status });
        const after = await tableSnapshot(table);
        const previous = new Set(before);
        const now = new Set(after);
        const written = [...after.filter((item) => !previous.has(item)), ...before.filter((item) => !now.has(item))];
        before = after;
        const refused = [401, 403, 404].includes(answer.status);
        const own = answer.status >= 200 && answer.status < 300;
        if (!refused && !own) problems.push(`${where}: answered ${answer.status} ${answer.text}`);
        if (attacker === READ_ONLY && route.access === 'write' && answer.status !== 403) {
          problems.push(`${where}: a route that writes answered ${answer.status}, not 403`);
        }
        if ((refused || attacker === READ_ONLY) && written.length > 0) {
          problems.push(`${where}: answered ${answer.status} and wrote ${written.length} items`);
        }
        if (written.some(isAlphas)) problems.push(`${where}: wrote Alpha’s items`);
        const leaks = attacker === READ_ONLY ? [] : leaksIn(answer, request);
        if (leaks.length > 0) problems.push(`${where}: answered Alpha’s ${leaks.join(', ')}`);
      }
    }

    expect(problems).toEqual([]);
    expect(attempts).toHaveLength(keyed.length * Object.keys(ATTACKERS).length);
  }, 240_000);

  it('answers others’ search by the id of Alpha’s pending content exactly as a search by an id nothing knows', async () => {
    const search = routeNamed('search-asset');
    const byId = async (assetId: number, key: string) => {
      const answer = await send(search, { pathParameters: {}, query: {}, body: { assetId } }, key);
      return { status: answer.status, body: answer.text.replaceAll(String(assetId), '<id>') };
    };
    // Alpha's read-only key is Alpha's: it finds its own pending report.
    const outsiders = (Object.entries(ATTACKERS) as [Attacker, string][]).filter(
      ([attacker]) => attacker !== READ_ONLY,
    );
    const pending: Answer[] = [];
    const unknown: Answer[] = [];

    for (const [attacker, key] of outsiders) {
      const answer = await byId(targets.pendingAssetId, key);
      attempts.push({ route: search.name, attacker, status: answer.status });
      pending.push({ status: answer.status, text: answer.body });
      const never = await byId(1, key);
      unknown.push({ status: never.status, text: never.body });
    }
    const own = await send(
      search,
      { pathParameters: {}, query: {}, body: { assetId: targets.pendingAssetId } },
      KEYS.alpha,
    );

    expect(pending).toEqual(unknown);
    expect(pending.map((answer) => [answer.status, JSON.parse(answer.text).asset])).toEqual([
      [200, null],
      [200, null],
      [200, null],
    ]);
    expect([own.status, own.text.includes(PENDING_CONTENT)]).toEqual([200, true]);
  });

  it('answers the routes public by design without a key, and shows none of Alpha’s secrets on them', async () => {
    const found: string[] = [];

    for (const declared of operationRoutes().filter(({ route }) => route.public)) {
      const { route } = declared;
      const request = requestFor(declared, 'anyone');
      for (const [caller, key] of [
        ['no key', undefined],
        ['Bravo’s key', KEYS.bravo],
      ] as const) {
        const answer = await send(route, request, key);
        publicAttempts.push({ route: route.name, caller, status: answer.status });
        if (![200, 404].includes(answer.status)) found.push(`${route.name} with ${caller}: ${answer.status}`);
        for (const leak of leaksIn(answer, request)) found.push(`${route.name} with ${caller}: ${leak}`);
      }
    }
    const page = await send(
      routeNamed('get-report-page'),
      requestFor(declaredNamed('get-report-page'), 'anyone'),
      undefined,
    );

    expect(found).toEqual([]);
    // Alpha's pending report: its page answers, with its status and dates and nothing of its content.
    expect(page.status).toBe(200);
    expect(page.text).toContain('<dd id="report-status">TODO</dd>');
    expect(page.text).toContain('id="report-created"');
    expect(page.text).not.toContain(PENDING_CONTENT);
    expect(page.text).not.toContain('id="assets"');
  });

  it('answers the same requests to Alpha’s own key: they reach Alpha’s data', async () => {
    const failed: string[] = [];
    // Deleting last, so that no route finds Alpha's webhook already deleted.
    const keyed = operationRoutes().filter(({ route }) => !route.public);
    const ordered = [
      ...keyed.filter(({ route }) => route.method !== 'DELETE'),
      ...keyed.filter(({ route }) => route.method === 'DELETE'),
    ];
    for (const declared of ordered) {
      const { route } = declared;
      const request = requestFor(declared, 'Alpha');
      let answer = await send(route, request, KEYS.alpha);
      if (answer.status >= 300 && declared.declaration?.caller === 'any')
        answer = await send(route, request, KEYS.alphaMember);
      // The service maintains its TAXII collections: a delete is refused even to their organization.
      const refusedByDesign = route.name === 'taxii-delete-object' && answer.status === 403;
      if (answer.status >= 300 && !refusedByDesign)
        failed.push(`${route.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }

    expect(failed).toEqual([]);
  }, 240_000);
});
