import { S3Client } from '@aws-sdk/client-s3';
import { failurePolicy, POLICY_STEP, policy } from './client.ts';

/** An S3 client under the same failure policy as the table's (see shared/db/client.ts). */
export const createS3Client = (): S3Client => {
  const { transport, callBudgetMs } = policy();
  const client = new S3Client(transport);
  client.middlewareStack.add(failurePolicy('list store', callBudgetMs), POLICY_STEP);
  return client;
};
