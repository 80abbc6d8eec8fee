import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { domainToASCII } from 'node:url';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, matchRoute } from '../../infra/local/gateway.ts';
import { key } from '../../shared/db/keys.ts';
import { permutations } from '../../shared/domain/detections/dnstwist.ts';
import { logEntry } from '../fixtures/certificates.ts';
import { assertDocumented } from '../fixtures/contract.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * Detections through the local gateway: DNS_TWIST over a fixture resolver, CERTSTREAM over a
 * recorded log of 50,000 benign certificates and 60 lookalikes (generated here from a seeded
 * generator, each a real DER certificate, half of them precertificate entries), auto-reporting,
 * and the contract of every detection route.
 */
const table = await createTestTable('e2e-detections');
const ACME = 'acme-detections-key-0123456789abcdef';
const GLOBEX = 'globex-detections-key-0123456789abcdef';
const MEMBER = 'member-detections-key-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'detections-'));

/** mulberry32: the same names on every run. */
const seeded = (start: number) => {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
const WORDS = [
  'blue',
  'river',
  'stone',
  'cloud',
  'pixel',
  'maple',
  'orbit',
  'delta',
  'nova',
  'cedar',
  'lumen',
  'harbor',
  'vertex',
  'falcon',
  'quartz',
  'summit',
  'tiger',
  'panda',
  'solar',
  'lunar',
  'forest',
  'garden',
  'kettle',
  'violet',
  'copper',
  'silver',
  'ember',
  'frost',
  'meadow',
  'prairie',
  'canyon',
  'lagoon',
  'island',
  'valley',
  'willow',
  'birch',
];
const BENIGN_TLDS = ['com', 'net', 'org', 'io', 'dev', 'shop', 'de'];
const benignNames = (count: number): string[] => {
  const random = seeded(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const names = new Set<string>();
  while (names.size < count)
    names.add(`${pick(WORDS)}${pick(WORDS)}${Math.floor(random() * 100)}.${pick(BENIGN_TLDS)}`);
  return [...names];
};
const KEYWORDS = ['login', 'airdrop', 'claim', 'support', 'verify', 'bonus', 'reward', 'secure', 'migrate', 'refund'];
const LOOKALIKES = [
  ...KEYWORDS.flatMap((keyword) => ['com', 'xyz', 'app'].map((tld) => `acme-${keyword}.${tld}`)),
  ...['acmme', 'acmd', 'acmee', 'aacme', 'acmw', 'qcme', 'acke', 'acmr'].flatMap((typo) => [
    `${typo}.com`,
    `${typo}.xyz`,
  ]),
  ...['\u0430cme', 'acm\u0435', '\u00e1cme'].flatMap((glyph) =>
    ['com', 'net', 'io'].map((tld) => domainToASCII(`${glyph}.${tld}`)),
  ),
  ...['xyz', 'app', 'click', 'online', 'top'].map((tld) => `acme.${tld}`),
];

const server = createGateway();
let base = '';

beforeAll(async () => {
  const registered = permutations(suffixes, 'acme.com')
    .filter((_, i) => i % 10 === 0)
    .map((p) => p.domain);
  writeFileSync(join(dir, 'dns.json'), JSON.stringify({ registered: [...registered, 'unrelated-site.com'] }));
  const benign = benignNames(50_000);
  const names = [...benign];
  // The lookalikes spread through the log, at seeded places.
  const random = seeded(11);
  for (const lookalike of LOOKALIKES) names.splice(Math.floor(random() * names.length), 0, lookalike);
  const entries = names.map((name, i) => logEntry(i % 3 === 0 ? [name, `www.${name}`] : [name], i + 1, i % 2 === 0));
  writeFileSync(join(dir, 'ct.json'), JSON.stringify({ entries }));
  process.env.DETECTION_DNS_FIXTURE = join(dir, 'dns.json');
  process.env.DETECTION_CT_RECORDING = join(dir, 'ct.json');
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet', includedTerms: ['acme', 'acme wallet'] }],
      },
      { slug: 'globex', name: 'Globex', brands: [{ slug: 'globex-pay', name: 'Globex Pay' }] },
    ],
    users: [{ id: 'u-det', memberships: [{ organization: 'acme', status: 'ACTIVE' }] }],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
      { key: MEMBER, user: 'u-det' },
    ],
    assets: [{ organization: 'acme', content: 'https://acme.com', type: 'URL', createdAt: '2026-01-02T03:04:05Z' }],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Answer = { status: number; body: Record<string, unknown> & { [key: string]: never } };
const call = async (method: string, path: string, apiKey: string, body?: unknown): Promise<Answer> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = JSON.parse(await response.text());
  const match = matchRoute(method, path.split('?')[0] as string);
  if (match) assertDocumented(match.route, response.status, parsed, (name) => response.headers.get(name));
  return { status: response.status, body: parsed };
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Config = { id: number; lastRunAt: string | null; lastResultCount: number | null };
/** Runs a config and waits (reading at most 2,000 times, 50 ms apart) until its run is recorded. */
const runAndWait = async (configId: number): Promise<Config> => {
  const before = await configOf(configId);
  const queued = await call('POST', '/detection/configs/run', ACME, { slug: 'acme', configId });
  expect(queued.status).toBe(200);
  for (let i = 0; i < 2000; i++) {
    const config = await configOf(configId);
    if (config.lastRunAt !== null && config.lastRunAt !== before.lastRunAt) return config;
    await pause(50);
  }
  throw new Error(`Run of config ${configId} did not finish`);
};
const configOf = async (configId: number): Promise<Config> => {
  const listed = await call('POST', '/detection/configs/list', ACME, { slug: 'acme' });
  const all = (listed.body.sources as unknown as { configs: Config[] }[]).flatMap((group) => group.configs);
  return all.find((config) => config.id === configId) as Config;
};
type DetectionView = {
  id: number;
  threatContent: string;
  source: string;
  confidence: string;
  reportStatus: string;
  configId: number;
  brands: { slug: string }[];
};
const allDetections = async (filters: unknown[] = []): Promise<DetectionView[]> => {
  const out: DetectionView[] = [];
  let cursor: number | undefined;
  do {
    const page = await call('POST', '/detection/list', ACME, { slug: 'acme', limit: 100, filters, cursor });
    expect(page.status).toBe(200);
    out.push(...(page.body.detections as unknown as DetectionView[]));
    cursor = (page.body.nextCursor as unknown as number | null) ?? undefined;
  } while (cursor !== undefined);
  return out;
};
const createConfig = async (body: object, apiKey = ACME) =>
  call('POST', '/detection/configs/create', apiKey, { slug: 'acme', ...body });

describe('DNS_TWIST through the fixture resolver', () => {
  it('turns the registered permutations of a brand domain into detections and leaves the unregistered out', async () => {
    const registered = permutations(suffixes, 'acme.com')
      .filter((_, i) => i % 10 === 0)
      .map((p) => p.domain);

    const created = await createConfig({ source: 'DNS_TWIST', config: { domains: ['acme.com'] } });
    const config = await runAndWait(created.body.id as unknown as number);
    const found = (await allDetections([{ property: 'source', operator: 'in', value: ['DNS_TWIST'] }])).map(
      (detection) => detection.threatContent,
    );

    expect(created.status).toBe(200);
    expect(config.lastResultCount).toBe(registered.length);
    expect(found.sort()).toEqual([...registered].sort());
  });
});

describe('CERTSTREAM over a recorded log', () => {
  it('finds the lookalikes among 50,000 benign names at medium confidence or above with precision and recall of at least 0.9, once, and files each report once', async () => {
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...key.detectionSettings('acme'), autoReport: true },
      }),
    );
    const created = await createConfig({ source: 'CERTSTREAM', config: { logs: ['https://ct.example.net/log'] } });
    const configId = created.body.id as unknown as number;

    await runAndWait(configId);
    const first = (await allDetections([{ property: 'source', operator: 'in', value: ['CERTSTREAM'] }])).filter(
      (detection) => detection.configId === configId,
    );
    const reportsAfterFirst = await reportCount();
    await call('POST', '/detection/configs/update', ACME, { slug: 'acme', configId, config: {} });
    // A second run from the start of the log: reset its position by a new config over the same log would
    // read only new entries, so the same config is rerun after its position is rewound.
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...key.detectionPosition('acme', configId, 'https://ct.example.net/log'),
          stream: 'https://ct.example.net/log',
          position: 0,
        },
      }),
    );
    const rerun = await runAndWait(configId);
    const second = (await allDetections([{ property: 'source', operator: 'in', value: ['CERTSTREAM'] }])).filter(
      (detection) => detection.configId === configId,
    );

    const flagged = new Set(
      first.filter((d) => d.confidence === 'medium' || d.confidence === 'high').map((d) => d.threatContent),
    );
    const truth = new Set(LOOKALIKES);
    const hits = [...flagged].filter((name) => truth.has(name) || truth.has(name.replace(/^www\./, ''))).length;
    const precision = hits / flagged.size;
    const recall = LOOKALIKES.filter((name) => flagged.has(name)).length / LOOKALIKES.length;
    const missed = LOOKALIKES.filter((name) => !flagged.has(name));
    console.info(
      `CERTSTREAM e2e: ${first.length} detections, ${flagged.size} at medium or above, precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}; missed ${missed.join(' ')}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(rerun.lastResultCount).toBe(0);
    expect(second.map((d) => d.id).sort()).toEqual(first.map((d) => d.id).sort());
    const reported = first.filter((d) => flagged.has(d.threatContent));
    expect(reported.length).toBeGreaterThan(0);
    expect(reportsAfterFirst).toBeGreaterThanOrEqual(hits);
    expect(await reportCount()).toBe(reportsAfterFirst);
    const reportedNow = second.filter((d) => d.reportStatus === 'REPORTED').length;
    expect(reportedNow).toBe(reportsAfterFirst);
  });
});

const reportCount = async (): Promise<number> => {
  let count = 0;
  let page: string | undefined;
  do {
    const listed = await call(
      'GET',
      `/organization/reports?limit=100${page ? `&next_page=${encodeURIComponent(page)}` : ''}`,
      ACME,
    );
    count += (listed.body.reports as unknown as unknown[]).length;
    page = (listed.body.next_page as unknown as string | null) ?? undefined;
  } while (page !== undefined);
  return count;
};

describe('the contract of the detection routes', () => {
  it('lists the four sources with their config schemas for an organization key and a member', async () => {
    const own = await call('GET', '/detection/sources', ACME);
    const member = await call('GET', '/detection/sources?slug=acme', MEMBER);

    expect(own.status).toBe(200);
    expect((own.body.sources as unknown as { key: string }[]).map((source) => source.key)).toEqual([
      'DNS_TWIST',
      'CERTSTREAM',
      'ASSET_CHECK',
      'EXTERNAL',
    ]);
    expect(member.body).toEqual(own.body);
    const [dnsTwist] = own.body.sources as unknown as { configSchema: Record<string, unknown> }[];
    expect(dnsTwist?.configSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { domains: { type: 'array', maxItems: 20 }, maxPermutations: { type: 'integer', default: 5000 } },
    });
  });

  it.each([
    ['POST', '/detection/list', {}],
    ['POST', '/detection/configs/list', {}],
    ['POST', '/detection/configs/create', { source: 'DNS_TWIST', config: {} }],
    ['POST', '/detection/configs/run', {}],
    ['POST', '/detection/configs/validate', {}],
    ['POST', '/detection/drift', {}],
  ])('answers %s %s for another organization with 403', async (method, path, body) => {
    const response = await call(method, path, GLOBEX, { slug: 'acme', ...body });

    expect(response.status).toBe(403);
    expect(response.body.message).toBe('API key does not have access to this organization');
  });

  it('answers a user key without membership of the organization with 403', async () => {
    const response = await call('POST', '/detection/list', MEMBER, { slug: 'globex' });

    expect(response.status).toBe(403);
    expect(response.body.message).toBe('API key does not have access to this organization');
  });

  it('answers a config that breaks its source schema with 400 naming the failing path', async () => {
    const response = await createConfig({ source: 'DNS_TWIST', config: { domains: ['acme.com', 'not a domain'] } });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      { message: 'config.domains.1 is not in the expected form', path: 'body.config.domains.1' },
    ]);
  });

  it('answers a CERTSTREAM log the egress policy refuses with 400 naming the log, in the local stage too', async () => {
    const response = await createConfig({
      source: 'CERTSTREAM',
      config: { logs: ['https://ct.example.net/log', 'https://127.0.0.1/'] },
    });

    expect(response.status).toBe(400);
    expect(response.body.issues).toEqual([
      {
        message: 'body.config.logs.1 must be a public https URL: 127.0.0.1 is not a public address',
        path: 'body.config.logs.1',
      },
    ]);
  });

  it('answers an unknown setting, an unknown source and cron on a push source with 400', async () => {
    const unknownSetting = await createConfig({ source: 'CERTSTREAM', config: { maxEntries: 5 } });
    const unknownSource = await createConfig({ source: 'GOOGLE_SEARCH', config: {} });
    const pushCron = await createConfig({ source: 'EXTERNAL', config: {}, cron: '0 * * * *' });

    expect(unknownSetting.status).toBe(400);
    expect(unknownSetting.body.issues).toEqual([
      { message: 'config.maxEntries is not a known setting', path: 'body.config.maxEntries' },
    ]);
    expect(unknownSource.status).toBe(400);
    expect(unknownSource.body.message).toBe('Unknown detection source GOOGLE_SEARCH');
    expect(pushCron.status).toBe(400);
  });

  it("answers another organization's brand with 403 and its config with 404", async () => {
    const globexConfig = await call('POST', '/detection/configs/create', GLOBEX, {
      slug: 'globex',
      source: 'EXTERNAL',
    });
    const brands = await call('GET', '/organization/brands', GLOBEX);
    const globexBrand = (brands.body.brands as unknown as { id: number }[])[0]?.id;

    const foreignBrand = await createConfig({ source: 'DNS_TWIST', brandId: globexBrand });
    const foreignConfig = await call('POST', '/detection/configs/update', ACME, {
      slug: 'acme',
      configId: globexConfig.body.id,
      status: 'DISABLED',
    });

    expect(foreignBrand.status).toBe(403);
    expect(foreignConfig.status).toBe(404);
  });

  it('updates with a merged config, soft deletes, and leaves the deleted config out of the listing', async () => {
    const created = await createConfig({ source: 'DNS_TWIST', config: { domains: ['acme.com'] }, cron: '0 6 * * *' });
    const id = created.body.id as unknown as number;

    const updated = await call('POST', '/detection/configs/update', ACME, {
      slug: 'acme',
      configId: id,
      status: 'DISABLED',
      config: { maxPermutations: 10 },
    });
    const deleted = await call('POST', '/detection/configs/delete', ACME, { slug: 'acme', configId: id });
    const again = await call('POST', '/detection/configs/delete', ACME, { slug: 'acme', configId: id });

    expect(updated.body).toMatchObject({ status: 'DISABLED', config: { domains: ['acme.com'], maxPermutations: 10 } });
    expect(deleted.body).toEqual({ id, deletedAt: expect.any(String) });
    expect(again.status).toBe(404);
    expect(await configOf(id)).toBeUndefined();
  });

  it('validates configs against their recent results, naming the silent ones', async () => {
    const silent = await createConfig({ source: 'EXTERNAL', title: 'Silent' });

    const validated = await call('POST', '/detection/configs/validate', ACME, { slug: 'acme', source: 'EXTERNAL' });

    expect(validated.status).toBe(200);
    expect(validated.body.failures).toContain(silent.body.id);
  });

  it('answers drift with signals from the run history', async () => {
    const drift = await call('POST', '/detection/drift', ACME, { slug: 'acme' });

    expect(drift.status).toBe(200);
    expect(Array.isArray(drift.body.signals)).toBe(true);
  });

  it('answers a limit above 100 and a bad filter operator with 400', async () => {
    const big = await call('POST', '/detection/list', ACME, { slug: 'acme', limit: 101 });
    const badFilter = await call('POST', '/detection/list', ACME, {
      slug: 'acme',
      filters: [{ property: 'source', operator: 'equals', value: ['DNS_TWIST'] }],
    });

    expect(big.status).toBe(400);
    expect(big.body.message).toBe('limit must be an integer between 1 and 100');
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.message).toBe('operator must be in or notIn');
  });
});
