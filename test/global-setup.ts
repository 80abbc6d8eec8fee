import type { TestProject } from 'vitest/node';
import { startDynamo } from '../infra/local/dynamo.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file makes its own table. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamo();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
