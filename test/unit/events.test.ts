import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventMismatch } from '../../infra/local/event-fit.ts';
import { fillTimes, readSampleEvent, sampleEventAt, unknownPlaceholder } from '../../infra/local/sample-event.ts';
import { ROUTES } from '../../infra/routes.ts';
import { sampleEvents } from '../fixtures/sample-events.ts';

const httpEvents = sampleEvents().filter(({ event }) => event.version === '2.0');

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
  const events = sampleEvents().map(({ event }) => event);
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
        readSampleEvent('events/resume-interrupted-writes.json'),
        'resume-interrupted-writes',
      ),
    ).toBeUndefined();
  });
});

describe('times in sample events', () => {
  const at = Date.UTC(2031, 5, 15, 12, 0, 0);

  it('are written relative to the moment the event is sent', () => {
    expect(fillTimes('{"since":"{{now-1h:ms}}"}', at)).toBe(`{"since":"${at - 3_600_000}"}`);
    expect(fillTimes('{{now}} {{now+2d:date}} {{now-30m}}', at)).toBe(
      '2031-06-15T12:00:00.000Z 2031-06-17 2031-06-15T11:30:00.000Z',
    );
  });

  it('stamp an HTTP event with the moment it is sent, as the gateway does', () => {
    const event = sampleEventAt(readFileSync('events/get-changelog.json', 'utf8'), at) as {
      body: string;
      requestContext: { time: string; timeEpoch: number };
    };
    expect(event.requestContext).toMatchObject({ timeEpoch: at, time: '2031-06-15T12:00:00.000Z' });
    expect(JSON.parse(event.body).since).toBe(String(at - 3_600_000));
  });

  it('refuse a placeholder they do not know, naming it', () => {
    expect(unknownPlaceholder('{"since":"{{now-1w}}"}')).toBe('{{now-1w}}');
    expect(() => sampleEventAt('{"since":"{{yesterday}}"}', at)).toThrow('Unknown placeholder {{yesterday}}');
  });
});
