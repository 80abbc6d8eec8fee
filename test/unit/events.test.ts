import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventMismatch } from '../../infra/local/event-fit.ts';
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

describe('npm run invoke, given an event', () => {
  const events = readdirSync('events')
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(readFileSync(`events/${file}`, 'utf8')) as Record<string, unknown>);
  const forRoute = (name: string) => {
    const route = ROUTES.find((r) => r.name === name);
    return events.find((event) => event.routeKey === `${route?.method} ${route?.path}`);
  };

  it('runs every route on its own sample events', () => {
    for (const route of ROUTES) expect(eventMismatch(route.name, forRoute(route.name)), route.name).toBeUndefined();
  });

  it("refuses a route's handler another route's event, naming both", () => {
    expect(eventMismatch('delete-asset', forRoute('check-asset'))).toBe(
      'delete-asset serves DELETE /organization/assets/{assetId}; this is an event of POST /asset/check (check-asset)',
    );
  });

  it("refuses a worker an HTTP event, and a route a worker's event", () => {
    expect(eventMismatch('ingest-activity', forRoute('check-asset'), 'ingest-activity')).toBe(
      'ingest-activity takes a queue event; this is an event of POST /asset/check (check-asset)',
    );
    expect(eventMismatch('check-asset', { Records: [] })).toBe(
      'check-asset serves POST /asset/check; this is a queue event',
    );
    expect(
      eventMismatch(
        'resume-interrupted-writes',
        JSON.parse(readFileSync('events/resume-interrupted-writes.json', 'utf8')),
        'resume-interrupted-writes',
      ),
    ).toBeUndefined();
  });
});
