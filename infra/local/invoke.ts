import { readFileSync } from 'node:fs';
import { ROUTES, WORKERS } from '../routes.ts';
import { withLocalTable } from './connect.ts';
import { loadHandler } from './gateway.ts';
import { lambdaContext } from './lambda-context.ts';

const [name, eventPath] = process.argv.slice(2);
const entry =
  ROUTES.find((route) => route.name === name)?.entry ?? (name ? (WORKERS as Record<string, string>)[name] : undefined);
if (!name || !eventPath || !entry) {
  const names = [...ROUTES.map((route) => route.name), ...Object.keys(WORKERS)];
  console.error(`Usage: npm run invoke -- <function> <event.json>\nFunctions: ${names.join(', ')}`);
  process.exit(2);
}

try {
  const event: unknown = JSON.parse(readFileSync(eventPath, 'utf8'));
  const result = await withLocalTable(async () => {
    const handler = await loadHandler(entry);
    return handler(event as Parameters<typeof handler>[0], lambdaContext(name));
  });
  console.log(JSON.stringify(result, null, 2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
