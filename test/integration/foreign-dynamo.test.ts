import { spawnSync } from 'node:child_process';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { withLocalTable } from '../../infra/local/connect.ts';
import { localClient, markOwner } from '../../infra/local/dynamo.ts';
import { OWNER_TABLE } from '../../infra/local/settings.ts';

/** The DynamoDB Local of this test run: to the local commands, one this checkout did not start. */
const endpoint = inject('dynamoEndpoint');

const tables = async () => {
  const client = localClient(endpoint);
  try {
    return (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  } finally {
    client.destroy();
  }
};

describe('local commands on a DynamoDB Local this checkout did not start', () => {
  it('npm run seed refuses with one line and writes nothing', async () => {
    const before = await tables();

    const run = spawnSync('npx', ['tsx', 'infra/local/seed-cli.ts', 'infra/local/demo.json'], {
      encoding: 'utf8',
      env: { ...process.env, DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: 'foreign-seed-target' },
    });

    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `infra/local/demo.json: The DynamoDB Local at ${endpoint} was not started by this checkout; nothing was written. Stop it, or set DYNAMO_PORT to a free port (this checkout then starts its own).`,
    ]);
    expect(await tables()).toEqual(before);
  });

  it("runs the command once the DynamoDB Local carries this checkout's mark", async () => {
    process.env.DYNAMODB_ENDPOINT = endpoint;
    await markOwner(endpoint, OWNER_TABLE);

    const used = await withLocalTable(async (at) => at);

    expect(used).toBe(endpoint);
  });
});
