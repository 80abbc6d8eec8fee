import type { AddressInfo } from 'node:net';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../infra/local/gateway.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { enteredItems } from '../../shared/db/taxii-repository.ts';
import { mapConcurrently } from '../../shared/domain/core/concurrency.ts';
import { applyActivity } from '../../shared/domain/lifecycle/activity.ts';
import { contentOfPattern, TLP_WHITE } from '../../shared/domain/taxii/index.ts';
import { seed } from '../fixtures/seed.ts';
import { stixProblems } from '../fixtures/stix-check.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

const table = await createTestTable('e2e-taxii');
const ACME = 'acme-org-key-taxii-0123456789';
const ACME_READ = 'acme-read-key-taxii-0123456789';
const GLOBEX = 'globex-org-key-taxii-0123456789';
const BULK = 'bulk-org-key-taxii-0123456789';
const BULK_OTHER = 'bulk-other-key-taxii-0123456789';
const MEDIA = 'application/taxii+json;version=2.1';
const BULK_SIZE = 10_000;
const server = createGateway();
let origin = '';
/** Every STIX object any answer of this file carried, checked against the OASIS schemas at the end. */
const emitted: { type: string; id: string; pattern?: string }[] = [];

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };
const call = async (
  method: string,
  path: string,
  key: string | undefined,
  { body, accept = MEDIA, basic = false }: { body?: unknown; accept?: string; basic?: boolean } = {},
): Promise<Answer> => {
  const auth: Record<string, string> =
    key === undefined
      ? {}
      : basic
        ? { authorization: `Basic ${Buffer.from(`taxii:${key}`).toString('base64')}` }
        : { 'X-API-KEY': key };
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { accept, ...auth, ...(body === undefined ? {} : { 'content-type': MEDIA }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await response.text()) as Record<string, unknown>;
  for (const object of (parsed.objects as typeof emitted | undefined) ?? []) if ('type' in object) emitted.push(object);
  return { status: response.status, headers: response.headers, body: parsed };
};
const API = '/v2/taxii2/api';
const collectionsOf = async (key: string) =>
  Object.fromEntries(
    ((await call('GET', `${API}/collections/`, key)).body.collections as { id: string; title: string }[]).map(
      (collection) => [collection.title, collection.id],
    ),
  ) as Record<'blocked' | 'allowed' | 'submissions', string>;

const threat = (organization: string, id: string, content: string, assetType: string, status: string) =>
  applyActivity(suffixes, activityRepository(table.db, table.tableName), {
    organization,
    kind: 'threat',
    id,
    content,
    assetType,
    status,
    watchlisted: false,
    brands: [],
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: status === 'REJECTED' ? '2026-03-02T10:00:00Z' : '2026-03-01T10:00:00Z',
    deleted: false,
  } as never);

const loadBulk = async () => {
  const items = Array.from({ length: BULK_SIZE }, (_, i) =>
    enteredItems({
      orgId: 'bulk',
      collection: 'blocked',
      checkKey: `bulk-${String(i).padStart(5, '0')}.example`,
      assetType: 'URL',
      generation: `seed:${i}`,
      created: '2026-02-01T00:00:00.000Z',
      enter: true,
    }),
  ).flat();
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  await mapConcurrently(batches, 8, async (batch) => {
    let pending: Record<string, unknown[]> | undefined = {
      [table.tableName]: batch.map((Item) => ({ PutRequest: { Item } })),
    };
    while (pending && Object.keys(pending).length > 0) {
      pending = (await table.db.send(new BatchWriteCommand({ RequestItems: pending as never }))).UnprocessedItems as
        | Record<string, unknown[]>
        | undefined;
    }
  });
};

beforeAll(async () => {
  await seed(table.db, table.tableName, {
    organizations: [
      { slug: 'acme', name: 'Acme' },
      { slug: 'globex', name: 'Globex' },
      { slug: 'bulk', name: 'Bulk' },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: ACME_READ, organization: 'acme', scopes: ['read'] },
      { key: GLOBEX, organization: 'globex' },
      { key: BULK, organization: 'bulk' },
      { key: BULK_OTHER, organization: 'bulk' },
    ],
    assets: [{ organization: 'acme', content: 'https://acme.com', type: 'URL', status: 'ALLOWED', name: 'Site' }],
  });
  await threat('acme', 't-1', 'acme-airdrop.xyz', 'URL', 'BLOCKED');
  await threat('acme', 't-2', 'https://acme-claim.xyz/wallet/connect', 'URL', 'APPROVED');
  await threat('acme', 't-3', '0x1234567890abcdef1234567890abcdef12345678', 'ADDRESS', 'AUTO_APPROVED');
  await threat('acme', 't-4', 'acme-gone.xyz', 'URL', 'BLOCKED');
  await threat('acme', 't-4', 'acme-gone.xyz', 'URL', 'REJECTED');
  await threat('acme', 't-5', 'acme-pending.xyz', 'URL', 'PENDING');
  await loadBulk();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

type Indicator = {
  id: string;
  type: string;
  pattern: string;
  indicator_types: string[];
  revoked?: boolean;
  modified: string;
};
const indicators = (answer: Answer) =>
  ((answer.body.objects as Indicator[] | undefined) ?? []).filter((object) => object.type === 'indicator');

describe('TAXII 2.1 discovery and API root', () => {
  it.each([
    ['/taxii2/', '/v2/taxii2/api/'],
    ['/v2/taxii2/', '/v2/taxii2/api/'],
    ['/api/v2/taxii2/', '/api/v2/taxii2/api/'],
  ])('answers discovery at %s naming the API root %s, in the TAXII media type', async (path, root) => {
    const answer = await call('GET', path, ACME);

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe(MEDIA);
    expect(answer.body).toEqual({
      title: expect.any(String),
      description: expect.any(String),
      default: root,
      api_roots: [root],
    });
  });

  it('describes the API root with the one TAXII version it speaks', async () => {
    const answer = await call('GET', `${API}/`, ACME, { basic: true });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      title: expect.any(String),
      description: expect.any(String),
      versions: [MEDIA],
      max_content_length: 6 * 1024 * 1024,
    });
  });
});

describe('TAXII 2.1 errors', () => {
  it('answers 401 with WWW-Authenticate: Basic and a TAXII error resource when no key is sent', async () => {
    const answer = await call('GET', `${API}/collections/`, undefined);

    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(answer.headers.get('content-type')).toBe(MEDIA);
    expect(answer.body).toEqual({ title: 'Unauthorized', description: expect.any(String), http_status: '401' });
  });

  it('answers 401 to a wrong password in Basic', async () => {
    expect((await call('GET', `${API}/collections/`, 'not-a-key-0123456789', { basic: true })).status).toBe(401);
  });

  it.each(['application/json', 'application/stix+json;version=2.1', 'application/taxii+json;version=2.0'])(
    'answers 406 to Accept: %s',
    async (accept) => {
      const answer = await call('GET', `${API}/collections/`, ACME, { accept });

      expect(answer.status).toBe(406);
      expect(answer.body).toEqual({ title: 'Not Acceptable', description: expect.any(String), http_status: '406' });
    },
  );

  it('accepts Accept: application/taxii+json without a version', async () => {
    expect((await call('GET', `${API}/collections/`, ACME, { accept: 'application/taxii+json' })).status).toBe(200);
  });

  it("answers 404 for another organization's collection, for its objects and for its manifest", async () => {
    const acme = await collectionsOf(ACME);

    for (const path of ['', 'objects/', 'manifest/']) {
      const answer = await call('GET', `${API}/collections/${acme.blocked}/${path}`, GLOBEX);
      expect(answer.status, path).toBe(404);
      expect(answer.body.http_status).toBe('404');
    }
  });

  it('answers 403 to DELETE of an object: the service maintains the collections', async () => {
    const { blocked } = await collectionsOf(ACME);
    const [first] = indicators(await call('GET', `${API}/collections/${blocked}/objects/`, ACME));

    const answer = await call('DELETE', `${API}/collections/${blocked}/objects/${first?.id}/`, ACME);

    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ title: 'Forbidden', description: expect.any(String), http_status: '403' });
  });
});

describe('TAXII 2.1 collections', () => {
  it('lists exactly blocked, allowed and submissions, writable only with a write key', async () => {
    const write = (await call('GET', `${API}/collections/`, ACME)).body.collections as Record<string, unknown>[];
    const read = (await call('GET', `${API}/collections/`, ACME_READ)).body.collections as Record<string, unknown>[];

    expect(write.map((one) => [one.title, one.can_read, one.can_write])).toEqual([
      ['blocked', true, false],
      ['allowed', true, false],
      ['submissions', false, true],
    ]);
    expect(read.map((one) => one.can_write)).toEqual([false, false, false]);
    expect(write.map((one) => one.id)).toEqual(read.map((one) => one.id));
    for (const one of write) {
      expect(one.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(one.media_types).toEqual(['application/stix+json;version=2.1']);
    }
  });

  it('gives each organization its own collection ids and answers one collection by its id', async () => {
    const acme = await collectionsOf(ACME);
    const globex = await collectionsOf(GLOBEX);

    const answer = await call('GET', `${API}/collections/${acme.allowed}/`, ACME);

    expect(new Set([...Object.values(acme), ...Object.values(globex)]).size).toBe(6);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: acme.allowed, title: 'allowed', can_read: true, can_write: false });
  });
});

describe('TAXII 2.1 objects', () => {
  it("serves the organization's blocking threats as malicious-activity indicators with the identity and TLP:WHITE", async () => {
    const { blocked } = await collectionsOf(ACME);

    const answer = await call('GET', `${API}/collections/${blocked}/objects/`, ACME);

    const objects = answer.body.objects as Record<string, unknown>[];
    expect(answer.status).toBe(200);
    expect(answer.body.more).toBe(false);
    expect(answer.body).not.toHaveProperty('next');
    expect(objects[0]).toMatchObject({ type: 'identity', name: 'Acme', identity_class: 'organization' });
    expect(indicators(answer).map((one) => one.pattern)).toEqual([
      "[domain-name:value = 'acme-airdrop.xyz']",
      "[url:value = 'https://acme-claim.xyz/wallet/connect']",
      "[cryptocurrency-wallet:value = '0x1234567890abcdef1234567890abcdef12345678']",
      "[domain-name:value = 'acme-gone.xyz']",
    ]);
    for (const one of indicators(answer).slice(0, 3)) {
      expect(one).toMatchObject({
        spec_version: '2.1',
        created_by_ref: objects[0]?.id,
        indicator_types: ['malicious-activity'],
        pattern_type: 'stix',
        object_marking_refs: [TLP_WHITE],
      });
      expect(one).not.toHaveProperty('revoked');
    }
  });

  it('serves a threat that left the blocking statuses as a later revoked version of its indicator', async () => {
    const { blocked } = await collectionsOf(ACME);
    const gone = indicators(await call('GET', `${API}/collections/${blocked}/objects/`, ACME)).at(-1) as Indicator;

    const versions = await call('GET', `${API}/collections/${blocked}/objects/${gone.id}/versions/`, ACME);
    const all = await call('GET', `${API}/collections/${blocked}/objects/${gone.id}/?match[version]=all`, ACME);
    const first = await call('GET', `${API}/collections/${blocked}/objects/${gone.id}/?match[version]=first`, ACME);

    expect(gone.revoked).toBe(true);
    expect(versions.body).toEqual({ more: false, versions: [expect.any(String), gone.modified] });
    expect(indicators(all).map((one) => one.revoked ?? false)).toEqual([false, true]);
    expect(indicators(first).map((one) => one.revoked ?? false)).toEqual([false]);
  });

  it('gives content that comes back a new indicator id, never reusing the revoked one', async () => {
    const { blocked } = await collectionsOf(ACME);
    const before = indicators(await call('GET', `${API}/collections/${blocked}/objects/`, ACME));
    await threat('acme', 't-6', 'acme-gone.xyz', 'URL', 'BLOCKED');

    const after = indicators(
      await call('GET', `${API}/collections/${blocked}/objects/?match[version]=all`, ACME),
    ).filter((one) => one.pattern === "[domain-name:value = 'acme-gone.xyz']");

    expect(after).toHaveLength(3);
    expect(new Set(after.map((one) => one.id)).size).toBe(2);
    expect(after.at(-1)?.id).not.toBe(before.at(-1)?.id);
    expect(after.at(-1)?.revoked).toBeUndefined();
  });

  it('serves the allowlist as benign indicators', async () => {
    const { allowed } = await collectionsOf(ACME);

    const answer = await call('GET', `${API}/collections/${allowed}/objects/?match[type]=indicator`, ACME);

    expect(indicators(answer).map((one) => [one.pattern, one.indicator_types])).toEqual([
      ["[domain-name:value = 'acme.com']", ['benign']],
    ]);
    expect(answer.body.objects).toHaveLength(1);
  });

  it('filters by match[id] and match[type], and serves one object and the manifest', async () => {
    const { blocked } = await collectionsOf(ACME);
    const [first] = indicators(await call('GET', `${API}/collections/${blocked}/objects/`, ACME));

    const byId = await call('GET', `${API}/collections/${blocked}/objects/?match[id]=${first?.id}`, ACME);
    const identities = await call('GET', `${API}/collections/${blocked}/objects/?match[type]=identity`, ACME);
    const one = await call('GET', `${API}/collections/${blocked}/objects/${first?.id}/`, ACME);
    const manifest = await call('GET', `${API}/collections/${blocked}/manifest/?limit=2`, ACME);

    expect((byId.body.objects as Indicator[]).map((object) => object.id)).toEqual([first?.id]);
    expect((identities.body.objects as Indicator[]).map((object) => object.type)).toEqual(['identity']);
    expect(one.body).toEqual({ more: false, objects: [first] });
    expect(manifest.body).toMatchObject({ more: true, next: expect.any(String) });
    expect(manifest.body.objects).toEqual([
      expect.objectContaining({
        date_added: expect.stringMatching(/\.\d{6}Z$/),
        media_type: 'application/stix+json;version=2.1',
      }),
      expect.objectContaining({ id: first?.id, version: first?.modified }),
    ]);
  });

  it('walks a collection one object a page, the identity first, each version once', async () => {
    const { allowed } = await collectionsOf(ACME);
    const seen: string[] = [];
    let next: string | undefined;
    do {
      const query = next === undefined ? '' : `&next=${encodeURIComponent(next)}`;
      const page = await call('GET', `${API}/collections/${allowed}/objects/?limit=1${query}`, ACME);
      expect(page.status).toBe(200);
      seen.push(...((page.body.objects as Indicator[] | undefined) ?? []).map((object) => object.type));
      next = page.body.more ? (page.body.next as string) : undefined;
    } while (next !== undefined);

    expect(seen).toEqual(['identity', 'indicator']);
  });

  it('answers 404 for an object the collection does not hold', async () => {
    const { blocked } = await collectionsOf(ACME);

    const answer = await call(
      'GET',
      `${API}/collections/${blocked}/objects/indicator--00000000-0000-4000-8000-000000000000/`,
      ACME,
    );

    expect(answer.status).toBe(404);
  });
});

describe(`TAXII 2.1 paging over ${BULK_SIZE} indicators`, () => {
  it('walks every object once, in date_added order, 1,000 a page, with the date-added headers', async () => {
    const { blocked } = await collectionsOf(BULK);
    const seen: string[] = [];
    let lastAdded = '';
    let next: string | undefined;
    let pages = 0;
    do {
      const query = next === undefined ? 'limit=1000' : `limit=1000&next=${encodeURIComponent(next)}`;
      const page = await call('GET', `${API}/collections/${blocked}/objects/?${query}`, BULK);
      const first = page.headers.get('x-taxii-date-added-first') ?? '';
      expect(first >= lastAdded).toBe(true);
      lastAdded = page.headers.get('x-taxii-date-added-last') ?? lastAdded;
      seen.push(...((page.body.objects as Indicator[] | undefined) ?? []).map((object) => object.id));
      expect(((page.body.objects as unknown[] | undefined) ?? []).length).toBeLessThanOrEqual(1000);
      next = page.body.more ? (page.body.next as string) : undefined;
      pages++;
    } while (next !== undefined);

    expect(seen).toHaveLength(BULK_SIZE + 1);
    expect(new Set(seen).size).toBe(BULK_SIZE + 1);
    expect(pages).toBeLessThanOrEqual(12);
  });

  it('caps limit at 1,000 and continues from added_after', async () => {
    const { blocked } = await collectionsOf(BULK);
    const page = await call('GET', `${API}/collections/${blocked}/objects/?limit=5000`, BULK);
    const last = page.headers.get('x-taxii-date-added-last') as string;

    const after = await call('GET', `${API}/collections/${blocked}/objects/?added_after=${last}&limit=1`, BULK);

    expect(page.body.objects).toHaveLength(1000);
    expect((after.headers.get('x-taxii-date-added-first') ?? '') > last).toBe(true);
  });

  it('refuses a next issued to another key or with other filters, with 400', async () => {
    const { blocked } = await collectionsOf(BULK);
    const page = await call('GET', `${API}/collections/${blocked}/objects/?limit=10`, BULK);
    const next = encodeURIComponent(page.body.next as string);

    const otherKey = await call('GET', `${API}/collections/${blocked}/objects/?limit=10&next=${next}`, BULK_OTHER);
    const otherFilter = await call(
      'GET',
      `${API}/collections/${blocked}/objects/?limit=10&match[type]=indicator&next=${next}`,
      BULK,
    );

    expect(otherKey.status).toBe(400);
    expect(otherFilter.status).toBe(400);
  });
});

const indicatorFor = (id: string, pattern: string) => ({
  type: 'indicator',
  spec_version: '2.1',
  id,
  created: '2026-05-01T00:00:00.000Z',
  modified: '2026-05-01T00:00:00.000Z',
  pattern,
  pattern_type: 'stix',
  valid_from: '2026-05-01T00:00:00.000Z',
  indicator_types: ['malicious-activity'],
});
const reportsOf = async (key: string) =>
  (
    await fetch(`${origin}/v2/organization/reports`, { headers: { 'X-API-KEY': key } }).then(
      (response) => response.json() as Promise<{ reports: { assets: { content: string }[] }[] }>,
    )
  ).reports;

describe('TAXII 2.1 submissions', () => {
  it('turns valid indicators into one pending report and lists the rest as failures, with a status to read again', async () => {
    const { submissions } = await collectionsOf(ACME);
    const before = (await reportsOf(ACME)).length;
    const objects = [
      indicatorFor('indicator--11111111-1111-4111-8111-111111111111', "[domain-name:value = 'phish-one.xyz']"),
      indicatorFor('indicator--22222222-2222-4222-8222-222222222222', "[file:name = 'x.exe']"),
      { type: 'malware', id: 'malware--33333333-3333-4333-8333-333333333333' },
    ];

    const posted = await call('POST', `${API}/collections/${submissions}/objects/`, ACME, { body: { objects } });
    const again = await call('GET', `${API}/status/${posted.body.id}/`, ACME);

    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({
      status: 'complete',
      total_count: 3,
      success_count: 1,
      failure_count: 2,
      pending_count: 0,
    });
    expect(posted.body.successes).toEqual([{ id: objects[0]?.id, version: '2026-05-01T00:00:00.000Z' }]);
    expect(again.body).toEqual(posted.body);
    const reports = await reportsOf(ACME);
    expect(reports).toHaveLength(before + 1);
    expect(reports[0]?.assets.map((asset) => asset.content)).toEqual(['phish-one.xyz']);
  });

  it('writes nothing when the same objects are posted again, and answers them as successes', async () => {
    const { submissions } = await collectionsOf(ACME);
    const objects = [
      indicatorFor('indicator--44444444-4444-4444-8444-444444444444', "[domain-name:value = 'phish-two.xyz']"),
    ];
    await call('POST', `${API}/collections/${submissions}/objects/`, ACME, { body: { objects } });
    const reports = (await reportsOf(ACME)).length;

    const again = await call('POST', `${API}/collections/${submissions}/objects/`, ACME, { body: { objects } });

    expect(again.body).toMatchObject({ success_count: 1, failure_count: 0 });
    expect(await reportsOf(ACME)).toHaveLength(reports);
  });

  it('writes no report when every object fails', async () => {
    const { submissions } = await collectionsOf(ACME);
    const objects = [indicatorFor('indicator--55555555-5555-4555-8555-555555555555', "[ipv4-addr:value = '10.0.0.1']")];
    const reports = (await reportsOf(ACME)).length;

    const posted = await call('POST', `${API}/collections/${submissions}/objects/`, ACME, { body: { objects } });

    expect(posted.body).toMatchObject({ success_count: 0, failure_count: 1 });
    expect(await reportsOf(ACME)).toHaveLength(reports);
  });

  it('answers 403 to a key without write, and to objects posted to a maintained collection', async () => {
    const { submissions, blocked } = await collectionsOf(ACME);
    const body = {
      objects: [indicatorFor('indicator--66666666-6666-4666-8666-666666666666', "[domain-name:value = 'x-y.xyz']")],
    };
    const reports = (await reportsOf(ACME)).length;

    const readOnly = await call('POST', `${API}/collections/${submissions}/objects/`, ACME_READ, { body });
    const maintained = await call('POST', `${API}/collections/${blocked}/objects/`, ACME, { body });

    expect([readOnly.status, maintained.status]).toEqual([403, 403]);
    expect(await reportsOf(ACME)).toHaveLength(reports);
  });

  // One service blocks content for every organization, so a report of content it already blocks is
  // refused (ASSET_ALREADY_CORRECT): acme's threats are withdrawn after the export, as if globex's
  // service were another one.
  it("round-trips: acme's blocked collection posted to globex's submissions becomes exactly globex's pending report", async () => {
    const acme = await collectionsOf(ACME);
    const globex = await collectionsOf(GLOBEX);
    const exported = indicators(await call('GET', `${API}/collections/${acme.blocked}/objects/`, ACME)).filter(
      (one) => !one.revoked,
    );
    await threat('acme', 't-1', 'acme-airdrop.xyz', 'URL', 'REJECTED');
    await threat('acme', 't-2', 'https://acme-claim.xyz/wallet/connect', 'URL', 'REJECTED');
    await threat('acme', 't-3', '0x1234567890abcdef1234567890abcdef12345678', 'ADDRESS', 'REJECTED');
    await threat('acme', 't-6', 'acme-gone.xyz', 'URL', 'REJECTED');

    const posted = await call('POST', `${API}/collections/${globex.submissions}/objects/`, GLOBEX, {
      body: { objects: exported },
    });

    expect(exported).toHaveLength(4);
    expect(posted.body).toMatchObject({ success_count: exported.length, failure_count: 0 });
    const [report] = await reportsOf(GLOBEX);
    expect(report?.assets.map((asset) => asset.content).sort()).toEqual(
      exported.map((one) => contentOfPattern(one.pattern)).sort(),
    );
  });
});

describe('STIX validity', () => {
  it('emits only objects that the OASIS STIX 2.1 schemas and the pattern grammar accept', () => {
    const problems = emitted.flatMap((object) => stixProblems(object).map((problem) => `${object.id}: ${problem}`));

    expect(emitted.length).toBeGreaterThan(BULK_SIZE);
    expect(problems).toEqual([]);
  });
});
