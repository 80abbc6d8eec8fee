import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** `endpoint` points at DynamoDB Local; in AWS it is unset and the SDK's own resolution applies. */
export const createDocumentClient = (endpoint?: string): DynamoDBDocumentClient => {
  const local = endpoint
    ? { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
  return DynamoDBDocumentClient.from(new DynamoDBClient({ ...local, maxAttempts: 5 }), {
    marshallOptions: { removeUndefinedValues: true },
  });
};
