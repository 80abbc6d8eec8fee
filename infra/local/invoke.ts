import { tableClient } from '../../shared/runtime.ts';
import { ROUTES, WORKER_WRITES, WORKERS, type Worker } from '../routes.ts';
import { withLocalTable } from './connect.ts';
import { eventMismatch } from './event-fit.ts';
import { loadHandler } from './gateway.ts';
import { lambdaContext } from './lambda-context.ts';
import { readSampleEvent } from './sample-event.ts';
import { guardWrites, runAs } from './write-guard.ts';

const [name, eventPath] = process.argv.slice(2);
const route = ROUTES.find((candidate) => candidate.name === name);
const worker = name !== undefined && Object.hasOwn(WORKERS, name) ? (name as Worker) : undefined;
const entry = route?.entry ?? (worker ? WORKERS[worker] : undefined);
if (!name || !eventPath || !entry) {
  const names = [...ROUTES.map((candidate) => candidate.name), ...Object.keys(WORKERS)];
  console.error(`Usage: npm run invoke -- <function> <event.json>\nFunctions: ${names.join(', ')}`);
  process.exit(2);
}
const writes = route ? (route.writes ?? []) : WORKER_WRITES[worker as Worker];

try {
  // A sample event is a request made now: its `{{now-1h}}`-style times are filled in from the clock.
  const event = readSampleEvent(eventPath);
  const mismatch = eventMismatch(name, event, worker);
  if (mismatch !== undefined) {
    console.error(`${eventPath}: ${mismatch}; nothing was run.`);
    process.exit(2);
  }
  const result = await withLocalTable(async () => {
    const handler = await loadHandler(entry);
    // As the gateway does: the function may write only the partitions it declares.
    guardWrites(tableClient());
    return runAs({ name, writes }, () => handler(event as Parameters<typeof handler>[0], lambdaContext(name)));
  });
  console.log(JSON.stringify(result, null, 2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
