import { mkdirSync } from 'node:fs';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ensureTable, hasOwner, localClient, markOwner, startDynamo } from './dynamo.ts';
import { applyLocalEnv, LOCAL, localEndpoint, OWNER_TABLE } from './settings.ts';

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

/** A DynamoDB Local answers where this checkout's would, but another checkout (or someone else) started it. */
class ForeignDynamoError extends Error {
  override name = 'ForeignDynamoError';
}

/**
 * Runs `work` against the local table: the one `npm start` serves when it is running, or else
 * a DynamoDB Local started for the duration on the same `.data/` files. A DynamoDB Local at that
 * address that this checkout did not start (it lacks `OWNER_TABLE`) is refused before anything is
 * written: on a shared machine it is another checkout's.
 */
export const withLocalTable = async <T>(work: (endpoint: string) => Promise<T>): Promise<T> => {
  let endpoint = localEndpoint();
  let stop: (() => Promise<void>) | undefined;
  if (await reachable(endpoint)) {
    if (!(await hasOwner(endpoint, OWNER_TABLE))) {
      throw new ForeignDynamoError(
        `The DynamoDB Local at ${endpoint} was not started by this checkout; nothing was written. Stop it, or set DYNAMO_PORT to a free port (this checkout then starts its own).`,
      );
    }
  } else {
    mkdirSync(LOCAL.dataDir, { recursive: true });
    const dynamo = await startDynamo({ port: LOCAL.dynamoPort, path: LOCAL.dataDir });
    endpoint = dynamo.endpoint;
    stop = dynamo.stop;
    await markOwner(endpoint, OWNER_TABLE);
  }
  try {
    applyLocalEnv(endpoint);
    await ensureTable(endpoint, LOCAL.tableName);
    return await work(endpoint);
  } finally {
    await stop?.();
  }
};
