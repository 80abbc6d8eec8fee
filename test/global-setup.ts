import type { TestProject } from 'vitest/node';
import { startDynamo } from '../infra/local/dynamo.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One in-memory DynamoDB Local for the whole run; each test file makes its own table. The unit and
 * CDK tests (`npm run test:unit`, `npm run test:infra`: `TEST_SCOPE=unit`) need none, so they run without Java.
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_SCOPE === 'unit') return;
  const dynamo = await startDynamo();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
