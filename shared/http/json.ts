import type { APIGatewayProxyResultV2 } from 'aws-lambda';

export type JsonResult = Exclude<APIGatewayProxyResultV2, string> & { statusCode: number; body: string };

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): JsonResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
