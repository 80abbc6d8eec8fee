import { readFileSync } from 'node:fs';
import { createDocumentClient } from '../../shared/db/client.ts';
import { withLocalTable } from './connect.ts';
import { loadFixture, parseFixture } from './fixture.ts';
import { LOCAL } from './settings.ts';

const path = process.argv[2];
if (!path) {
  console.error('Usage: npm run seed -- <fixture.json>');
  process.exit(2);
}

try {
  const fixture = parseFixture(JSON.parse(readFileSync(path, 'utf8')));
  await withLocalTable(async (endpoint) => {
    console.log(`Seeding ${path} into table ${LOCAL.tableName} at ${endpoint}`);
    await loadFixture(createDocumentClient(endpoint), LOCAL.tableName, fixture, (line) => console.log(`  ${line}`));
  });
  console.log('Done.');
} catch (error) {
  console.error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
