import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ATTR, type TablePartition } from '../../shared/db/keys.ts';

/**
 * The local stand-in for the IAM condition that limits each function's role to the partitions it
 * declares (`writes` in infra/routes.ts; `dynamodb:LeadingKeys` with `ForAllValues:StringLike` in
 * AWS). The local runtime runs every handler in one process over one table client: `runAs` marks
 * which function is running, and the client's `guardWrites` middleware refuses, as DynamoDB would
 * answer that role, every write whose partition key none of its patterns matches. Only the local
 * runtime installs it; no function imports this module, so no bundle holds it. Writes made outside
 * `runAs` (the operator's tools, the seed, tests' own setup) are not checked.
 */
export type Declared = { name: string; writes: readonly TablePartition[] };

type Running = Declared & { denied: Set<string> };
type Write = { action: string; partition: string | undefined };

const running = new AsyncLocalStorage<Running>();

const compiled = new Map<string, RegExp>();
/** IAM's `StringLike`: `*` is any run of characters, `?` any one character, every other character itself. */
export const matchesPattern = (pattern: string, value: string): boolean => {
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = [...pattern]
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, 's');
    compiled.set(pattern, regex);
  }
  return regex.test(value);
};

/** A key's partition key, in the document client's form (a string) or the low-level one (`{S}`). */
const partitionOf = (key: unknown): string | undefined => {
  const value = (key as Record<string, unknown> | undefined)?.[ATTR.pk];
  if (typeof value === 'string') return value;
  const text = (value as { S?: unknown } | undefined)?.S;
  return typeof text === 'string' ? text : undefined;
};

type Input = Record<string, unknown>;
type Request = { Put?: Input; Update?: Input; Delete?: Input; ConditionCheck?: Input };
type BatchRequest = { PutRequest?: Input; DeleteRequest?: Input };

const transactWrite = ({ Put, Update, Delete, ConditionCheck }: Request): Write => {
  if (Put) return { action: 'PutItem', partition: partitionOf(Put.Item) };
  if (Update) return { action: 'UpdateItem', partition: partitionOf(Update.Key) };
  if (Delete) return { action: 'DeleteItem', partition: partitionOf(Delete.Key) };
  return { action: 'ConditionCheckItem', partition: partitionOf(ConditionCheck?.Key) };
};

/** The writes a command makes, each as the action IAM authorizes; undefined for a command that writes nothing. */
const writesOf = (command: string | undefined, input: Input): Write[] | undefined => {
  switch (command) {
    case 'PutItemCommand':
      return [{ action: 'PutItem', partition: partitionOf(input.Item) }];
    case 'UpdateItemCommand':
      return [{ action: 'UpdateItem', partition: partitionOf(input.Key) }];
    case 'DeleteItemCommand':
      return [{ action: 'DeleteItem', partition: partitionOf(input.Key) }];
    case 'TransactWriteItemsCommand':
      return ((input.TransactItems ?? []) as Request[]).map(transactWrite);
    case 'BatchWriteItemCommand':
      return Object.values((input.RequestItems ?? {}) as Record<string, BatchRequest[]>)
        .flat()
        .map(({ PutRequest, DeleteRequest }) =>
          PutRequest
            ? { action: 'PutItem', partition: partitionOf(PutRequest.Item) }
            : { action: 'DeleteItem', partition: partitionOf(DeleteRequest?.Key) },
        );
    // PartiQL names its keys inside the statement, where this guard cannot see them; the service does not use it.
    case 'ExecuteStatementCommand':
    case 'BatchExecuteStatementCommand':
    case 'ExecuteTransactionCommand':
      return [{ action: 'PartiQL', partition: undefined }];
    default:
      return undefined;
  }
};

/** The error DynamoDB answers a role that may not write there (an unmodelled error: the SDK's base class). */
const accessDenied = (fn: Running, { action, partition }: Write) =>
  new DynamoDBServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message:
      `${fn.name} is not authorized to perform: dynamodb:${action} on partition ${partition ?? '(unseen)'}: ` +
      `it declares writes to ${fn.writes.length > 0 ? fn.writes.join(', ') : 'no partition'} (local write guard)`,
  });

const GUARD_STEP = { step: 'initialize', name: 'localWriteGuard' } as const;
const guarded = new WeakSet<object>();

const written = new Map<string, Set<TablePartition>>();
/** The declared partitions function `name` has been let write so far in this process: tests hold declarations to what runs write. */
export const partitionsWritten = (name: string): ReadonlySet<TablePartition> => written.get(name) ?? new Set();
const record = (fn: Running, writes: readonly Write[]) => {
  const partitions = written.get(fn.name) ?? new Set();
  for (const { partition } of writes) {
    const pattern = fn.writes.find((declared) => partition !== undefined && matchesPattern(declared, partition));
    if (pattern) partitions.add(pattern);
  }
  written.set(fn.name, partitions);
};

/** Adds the guard to `client` (once; the middleware stack is the one its DynamoDB client shares). */
export const guardWrites = (client: DynamoDBDocumentClient): void => {
  const stack = client.middlewareStack;
  if (guarded.has(stack)) return;
  guarded.add(stack);
  stack.add(
    (next, context) => async (args) => {
      const fn = running.getStore();
      const writes = fn && writesOf(context.commandName, args.input as Input);
      if (fn && writes) {
        const refused = writes.find(
          ({ partition }) =>
            partition === undefined || !fn.writes.some((pattern) => matchesPattern(pattern, partition)),
        );
        if (refused) {
          const error = accessDenied(fn, refused);
          fn.denied.add(error.message);
          throw error;
        }
        record(fn, writes);
      }
      return next(args);
    },
    GUARD_STEP,
  );
};

/** A write was refused while the function ran, even if the function went on (in AWS the write would be lost unseen). */
export class UndeclaredWriteError extends Error {
  override name = 'UndeclaredWriteError';
}

/**
 * Runs `work` as function `fn`: its writes through a guarded client must fall in `fn.writes`.
 * Work that fails with the refusal fails as it would in AWS; work that recovered from a refusal
 * fails here too, with UndeclaredWriteError, so a missing declaration cannot hide behind a fallback.
 */
export const runAs = async <T>(fn: Declared, work: () => Promise<T>): Promise<T> => {
  const state: Running = { ...fn, denied: new Set() };
  const result = await running.run(state, work);
  if (state.denied.size > 0) {
    throw new UndeclaredWriteError(`Writes refused while ${fn.name} ran: ${[...state.denied].join('; ')}`);
  }
  return result;
};
