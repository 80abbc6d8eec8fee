import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

export const createDocumentClient = (endpoint?: string): DynamoDBDocumentClient => {
  const local = endpoint
    ? { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
  return DynamoDBDocumentClient.from(new DynamoDBClient({ ...local, maxAttempts: 5 }), {
    marshallOptions: { removeUndefinedValues: true },
  });
};

export const documentClient = createDocumentClient(config.dynamoEndpoint);
