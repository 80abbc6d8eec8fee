import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoActivity } from '../../infra/local/demo-activity.ts';
import { createGateway } from '../../infra/local/gateway.ts';
import { DOCUMENT_FILE } from '../../infra/openapi/file.ts';
import { BASE_PATHS } from '../../infra/routes.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { applyActivities } from '../../shared/domain/lifecycle/activity.ts';
import { eventually } from '../fixtures/eventually.ts';
import { seed } from '../fixtures/seed.ts';
import { suffixes } from '../fixtures/suffixes.ts';
import { createTestTable } from '../fixtures/table.ts';

/**
 * The types of a client are generated here, from the committed description, each run: a generated
 * file in the repository would go stale with every change of a route and conflict in every merge,
 * while the description itself is already held current by the OpenAPI tests.
 */
const ROOT = resolve(import.meta.dirname, '../..');
mkdirSync(join(ROOT, '.test-results'), { recursive: true });
const project = mkdtempSync(join(ROOT, '.test-results', 'typed-client-'));
const CLIENT = 'test/client/readme-client.ts';
const KEY = 'demo-acme-0123456789abcdef';
const README_CONTENT = 'acme-wallet-airdrop-6.xyz';

/** test/client/readme-client.ts, loaded from beside its generated types (the project's type-check leaves it out). */
type ReadmeClient = {
  apiClient: (baseUrl: string, apiKey: string) => unknown;
  listGroups: (client: unknown) => Promise<{ name: string; assetCount: number }[]>;
  checkContent: (client: unknown, content: string) => Promise<{ status: string; source: string }>;
};
let readme: ReadmeClient;

const typeCheck = () => {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        noUnusedLocals: true,
        noUnusedParameters: true,
        verbatimModuleSyntax: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        types: ['node'],
      },
      files: ['readme-client.ts', 'openapi-schema.ts'],
    }),
  );
  return spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
    encoding: 'utf8',
  });
};

const table = await createTestTable('typed-client');
const server = createGateway();
let origin = '';

beforeAll(async () => {
  writeFileSync(
    join(project, 'openapi-schema.ts'),
    await openapiTS(pathToFileURL(resolve(ROOT, DOCUMENT_FILE)), { exportType: false }),
  );
  copyFileSync(resolve(ROOT, CLIENT), join(project, 'readme-client.ts'));
  readme = (await import(pathToFileURL(join(project, 'readme-client.ts')).href)) as ReadmeClient;
  // What `npm start` loads, which the README's calls are written against.
  await seed(table.db, table.tableName, JSON.parse(readFileSync(resolve(ROOT, 'infra/local/demo.json'), 'utf8')));
  // Of the demo activity, only what the README's check is about: the whole 90 days take long to record.
  const aboutReadme = demoActivity(suffixes, new Date()).filter((change) =>
    JSON.stringify(change).includes(README_CONTENT),
  );
  await applyActivities(suffixes, activityRepository(table.db, table.tableName), aboutReadme);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A recorded block reaches the check once it settles, as it has by the time `npm start` prints the calls.
  await eventually(
    async () => {
      const { status } = await readme.checkContent(
        readme.apiClient(`${origin}${BASE_PATHS[0]}`, KEY),
        `https://${README_CONTENT}`,
      );
      if (status !== 'BLOCKED') throw new Error(`${README_CONTENT} is ${status}`);
    },
    { tries: 600, intervalMs: 100 },
  );
});
afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  rmSync(project, { recursive: true, force: true });
});

describe('a client typed by the description (openapi-typescript, openapi-fetch)', () => {
  it(`type-checks ${CLIENT} against the types generated from the committed description`, () => {
    const run = typeCheck();

    expect(`${run.stdout}${run.stderr}`).toBe('');
    expect(run.status).toBe(0);
  });

  describe.each(BASE_PATHS)('runs the README calls under %s', (base) => {
    it('lists the demo organization’s groups', async () => {
      const groups = await readme.listGroups(readme.apiClient(`${origin}${base}`, KEY));

      expect(groups.map(({ name }) => name).sort()).toEqual(['Social', 'Wallets', 'Websites']);
      expect(groups.every(({ assetCount }) => Number.isInteger(assetCount) && assetCount >= 0)).toBe(true);
    });

    it('checks the README’s airdrop URL, which the demo activity blocked', async () => {
      const verdict = await readme.checkContent(readme.apiClient(`${origin}${base}`, KEY), `https://${README_CONTENT}`);

      expect(verdict).toEqual({ status: 'BLOCKED', source: 'service' });
    });
  });
});
