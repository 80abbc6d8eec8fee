import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { Scope } from '../domain/account/api-keys.ts';

export type { APIGatewayProxyResultV2 as ApiResult, Context };

export type OrganizationAuth = { kind: 'organization'; orgId: string; scopes: Scope[] };
export type UserAuth = { kind: 'user'; userId: string; scopes: Scope[] };
export type Auth = OrganizationAuth | UserAuth;

/** An HTTP API 2.0 event after `apiKeyAuth` ran; the body may already be parsed JSON. */
export type ApiEvent<A extends Auth = Auth> = Omit<APIGatewayProxyEventV2, 'body'> & {
  body?: unknown;
  auth: A;
};

export type RequestSchema = {
  body?: v.GenericSchema;
  queryStringParameters?: v.GenericSchema;
  pathParameters?: v.GenericSchema;
};

/** The event a handler sees once `validate(request)` replaced each declared part with its parsed output. */
export type ValidatedEvent<R extends RequestSchema, A extends Auth = OrganizationAuth> = Omit<ApiEvent<A>, keyof R> & {
  [K in keyof R]: R[K] extends v.GenericSchema ? v.InferOutput<R[K]> : never;
};
