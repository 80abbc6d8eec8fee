import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/routes.ts';

const httpEvents = readdirSync('events')
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ file, event: JSON.parse(readFileSync(`events/${file}`, 'utf8')) as Record<string, unknown> }))
  .filter(({ event }) => event.version === '2.0');

describe('sample events', () => {
  it('cover every route of the route table', () => {
    const keys = new Set(httpEvents.map(({ event }) => event.routeKey));

    for (const route of ROUTES) expect(keys, route.name).toContain(`${route.method} ${route.path}`);
  });

  it.each(httpEvents)('$file is an HTTP API 2.0 event of a known route', ({ event }) => {
    expect(ROUTES.map((r) => `${r.method} ${r.path}`)).toContain(event.routeKey);
    expect(event.requestContext).toMatchObject({ http: { method: expect.any(String) }, requestId: expect.any(String) });
  });
});
