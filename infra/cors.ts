/**
 * Cross-origin access, one configuration for the HTTP API and the local gateway. Keys travel in
 * headers, never cookies, so any origin may call by default and credentials are never allowed.
 */
export type CorsSettings = {
  allowOrigins: readonly string[];
  allowHeaders: readonly string[];
  allowMethods: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeSeconds: number;
};

/** Origins from a comma-separated setting (`CORS_ORIGINS` locally, the `corsOrigins` context in CDK); default `*`. */
export const parseOrigins = (setting: string | undefined): string[] => {
  const origins = (setting ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  return origins.length > 0 ? origins : ['*'];
};

export const corsSettings = (allowOrigins: readonly string[] = ['*']): CorsSettings => ({
  allowOrigins,
  allowHeaders: ['X-API-KEY', 'Authorization', 'Content-Type'],
  allowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  exposeHeaders: ['Deprecation', 'Link', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
  maxAgeSeconds: 600,
});

/** The `Access-Control-Allow-Origin` value for a request's `Origin`, if that origin may call. */
export const allowedOrigin = (settings: CorsSettings, origin: string | undefined): string | undefined => {
  if (origin === undefined) return undefined;
  if (settings.allowOrigins.includes('*')) return '*';
  return settings.allowOrigins.includes(origin) ? origin : undefined;
};
