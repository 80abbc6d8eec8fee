import type { MiddlewareObj } from '@middy/core';
import type { ApiKeyRecord, KeyResolver, ResolvedKey, Scope } from '../domain/account/api-keys.ts';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import type { Auth } from './api-event.ts';
import { headerOf } from './request.ts';

type Options = {
  /** Organization-scoped endpoints accept only organization keys. */
  organization: boolean;
  scope: Scope;
  /** Also takes the key as the password of HTTP Basic, as TAXII clients send it. */
  basic?: boolean;
};

/** Far above any key the service issues; a longer header is not a key and costs no lookup. */
const MAX_KEY_LENGTH = 256;

/** The password of an `Authorization: Basic` header (the user name is ignored). */
const basicPassword = (authorization: string): string | undefined => {
  const credentials = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)?.[1];
  if (credentials === undefined) return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
};

export const presentedKey = (
  headers: Record<string, string | undefined> | undefined,
  { basic = false }: { basic?: boolean } = {},
): string | undefined => {
  const authorization = headerOf(headers, 'authorization') ?? '';
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const key =
    headerOf(headers, 'x-api-key')?.trim() || bearer?.[1] || (basic ? basicPassword(authorization) : undefined);
  return key && key.length <= MAX_KEY_LENGTH ? key : undefined;
};

const toAuth = (record: ApiKeyRecord): Auth =>
  record.kind === 'organization'
    ? { kind: 'organization', orgId: record.orgId, scopes: record.scopes }
    : { kind: 'user', userId: record.userId, scopes: record.scopes };

/** The key `apiKeyAuth` resolved for this request, for the middlewares after it (the rate limit). */
export const resolvedKeyOf = (request: { internal: object }): ResolvedKey | undefined =>
  (request.internal as { apiKey?: ResolvedKey }).apiKey;

/**
 * Resolves `X-API-KEY` (or `Authorization: Bearer`) and sets `event.auth`. The source address goes
 * with the key: unknown keys count against its failed-key budget (`cachedKeyResolver`).
 */
export const apiKeyAuth = <
  E extends { headers?: Record<string, string | undefined>; requestContext?: { http?: { sourceIp?: string } } },
>(
  options: Options,
  resolve: KeyResolver,
): MiddlewareObj<E> => ({
  before: async (request) => {
    const unauthorized = options.organization
      ? 'API key with organization access required'
      : 'A valid API key is required';
    const key = presentedKey(request.event.headers, { basic: options.basic === true });
    if (!key) throw new UnauthorizedError(unauthorized);
    const record = await resolve(key, request.event.requestContext?.http?.sourceIp);
    if (!record || record.revoked) throw new UnauthorizedError(unauthorized);
    if (options.organization && record.kind !== 'organization') throw new UnauthorizedError(unauthorized);
    if (!record.scopes.includes(options.scope)) {
      throw new ForbiddenError(`API key does not have ${options.scope} access`);
    }
    Object.assign(request.event, { auth: toAuth(record) });
    Object.assign(request.internal, { apiKey: record });
  },
});
