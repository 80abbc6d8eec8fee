import { mkdirSync } from 'node:fs';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, localClient, startDynamo } from './dynamo.ts';
import { applyLocalEnv, LOCAL, localEndpoint } from './settings.ts';

const reachable = async (endpoint: string): Promise<boolean> => {
  const client = localClient(endpoint);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
};

/**
 * Runs `work` against the local table: the one `npm start` serves when it is running, or else
 * a DynamoDB Local started for the duration on the same `.data/` files.
 */
export const withLocalTable = async <T>(work: (endpoint: string) => Promise<T>): Promise<T> => {
  let endpoint = localEndpoint();
  let stop: (() => Promise<void>) | undefined;
  if (!(await reachable(endpoint))) {
    mkdirSync(LOCAL.dataDir, { recursive: true });
    const dynamo = await startDynamo({ port: LOCAL.dynamoPort, path: LOCAL.dataDir });
    endpoint = dynamo.endpoint;
    stop = dynamo.stop;
  }
  try {
    applyLocalEnv(endpoint);
    await ensureTable(endpoint, LOCAL.tableName);
    return await work(endpoint);
  } finally {
    await stop?.();
  }
};
