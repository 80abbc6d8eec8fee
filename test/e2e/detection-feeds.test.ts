import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSamplesSettled, createGateway } from '../../infra/local/gateway.ts';
import { inProcessScansSettled } from '../../shared/db/scan-queue.ts';
import { checkSamples, tableClient } from '../../shared/runtime.ts';
import { seed } from '../fixtures/seed.ts';
import { createTestTable } from '../fixtures/table.ts';

/*
 * The push sources through the local gateway: `/asset/submit` feeds EXTERNAL, unknown content an
 * organization scans or submits feeds its ASSET_CHECK, and so does unknown content anyone checks,
 * sampled off the check's path: the check itself still writes nothing.
 */
const table = await createTestTable('e2e-detection-feeds');
const ACME = 'acme-feeds-key-0123456789abcdef';
const GLOBEX = 'globex-feeds-key-0123456789abcdef';
const server = createGateway();
let base = '';

/** Write commands of the functions' table client (the check's and the in-process workers'). */
const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
const writes: string[] = [];

beforeAll(async () => {
  tableClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITE_COMMANDS.test(context.commandName ?? '')) writes.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize', name: 'countFeedWrites' },
  );
  await seed(table.db, table.tableName, {
    organizations: [
      {
        slug: 'acme',
        name: 'Acme',
        brands: [{ slug: 'acme-wallet', name: 'Acme Wallet', includedTerms: ['acme', 'acme wallet'] }],
      },
      { slug: 'globex', name: 'Globex', brands: [{ slug: 'globex-pay', name: 'Globex Pay' }] },
    ],
    apiKeys: [
      { key: ACME, organization: 'acme' },
      { key: GLOBEX, organization: 'globex' },
    ],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (path: string, apiKey: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': apiKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
type Listed = { threatContent: string; source: string; reportStatus: string; configId: number };
const detections = async (apiKey: string, slug: string, source: string) => {
  const listed = await call('/detection/list', apiKey, {
    slug,
    limit: 100,
    filters: [{ property: 'source', operator: 'in', value: [source] }],
  });
  return listed.body.detections as Listed[];
};

describe('EXTERNAL from /asset/submit', () => {
  it('records every asset an organization submits as an EXTERNAL detection of its enabled config, and nothing for one without', async () => {
    const config = await call('/detection/configs/create', ACME, { slug: 'acme', source: 'EXTERNAL', config: {} });
    const submitted = await call('/asset/submit', ACME, {
      assets: ['https://acme-wallet-support.app/ticket', 'bluecloud-garden.org'],
      organizationSlug: 'acme',
    });
    const other = await call('/asset/submit', GLOBEX, { assets: ['globex-pay-help.xyz'], organizationSlug: 'globex' });
    await inProcessScansSettled();

    const found = await detections(ACME, 'acme', 'EXTERNAL');
    expect(submitted.status).toBe(200);
    expect(other.status).toBe(200);
    expect(found.map((d) => d.threatContent).sort()).toEqual([
      'bluecloud-garden.org',
      'https://acme-wallet-support.app/ticket',
    ]);
    expect(new Set(found.map((d) => d.configId))).toEqual(new Set([config.body.id]));
    expect(await detections(GLOBEX, 'globex', 'EXTERNAL')).toEqual([]);
  });
});

describe('ASSET_CHECK from scans', () => {
  it('records unknown scanned content that scores as a lookalike, and not content that does not', async () => {
    await call('/detection/configs/create', ACME, { slug: 'acme', source: 'ASSET_CHECK', config: {} });

    await call('/asset/scan', ACME, { content: 'acme-airdrop.click', organizationSlug: 'acme' });
    await call('/asset/scan', ACME, { content: 'quiet-meadow-garden.org', organizationSlug: 'acme' });
    await inProcessScansSettled();

    expect((await detections(ACME, 'acme', 'ASSET_CHECK')).map((d) => d.threatContent)).toEqual(['acme-airdrop.click']);
  });
});

describe('ASSET_CHECK from the check', () => {
  const check = (content: string) => call('/asset/check', GLOBEX, { content });
  const settled = async () => {
    checkSamples().flush();
    await checkSamplesSettled();
  };

  it('records the lookalikes of unknown content anyone checked, and not the rest', async () => {
    const lookalikes = ['acme-bonus.click', 'https://acme-verify.top/login'];
    const benign = Array.from({ length: 30 }, (_, i) => `https://maple-harbor-${i}.example.org/`);

    const answers = await Promise.all([...lookalikes, ...benign].map(check));
    await settled();

    expect(answers.every((answer) => answer.status === 200 && answer.body.status === 'UNKNOWN')).toBe(true);
    expect((await detections(ACME, 'acme', 'ASSET_CHECK')).map((d) => d.threatContent).sort()).toEqual([
      'acme-airdrop.click',
      'acme-bonus.click',
      'https://acme-verify.top/login',
    ]);
  });

  it('writes nothing for 1,000 checks of unknown content, and once per new lookalike however often it is checked', async () => {
    const before = (await detections(ACME, 'acme', 'ASSET_CHECK')).length;
    writes.length = 0;

    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => check(`https://cedar-lagoon-${batch * 50 + i}.example.net/`)),
      );
    }
    await settled();
    const benignWrites = [...writes];
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => check(`acme-reward-${i % 5}.xyz`)));
    }
    await settled();
    const added = (await detections(ACME, 'acme', 'ASSET_CHECK')).length - before;

    expect(benignWrites).toEqual([]);
    expect(added).toBe(5);
    expect(writes).toEqual(Array.from({ length: added }, () => 'TransactWriteItemsCommand'));
  });
});
