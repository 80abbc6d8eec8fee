import { readFileSync } from 'node:fs';

/**
 * A time in a sample event, written relative to the moment it is sent: `{{now}}`, `{{now-1h}}`,
 * `{{now+30m:ms}}`. The offset takes `s`, `m`, `h` or `d`; the format `iso` (the default, an
 * ISO 8601 date-time), `date` (`YYYY-MM-DD`) or `ms` (epoch milliseconds, as the changelog's
 * versions). Events that mean "recent" say so with these, so they mean the same on any date.
 */
const PLACEHOLDER = /\{\{now(?:([+-])(\d+)([smhd]))?(?::(iso|date|ms))?\}\}/g;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `text` with every time placeholder written out for the moment `now` (epoch ms). */
export const fillTimes = (text: string, now: number): string =>
  text.replace(PLACEHOLDER, (_match, sign?: string, amount?: string, unit?: keyof typeof UNIT_MS, format?: string) => {
    const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * Number(amount) * UNIT_MS[unit ?? 's'];
    const at = now + offset;
    if (format === 'ms') return String(at);
    const iso = new Date(at).toISOString();
    return format === 'date' ? iso.slice(0, 10) : iso;
  });

/** Whether `text` still holds a placeholder `fillTimes` does not know (a typo would otherwise reach a handler). */
export const unknownPlaceholder = (text: string): string | undefined =>
  /\{\{[^}]*\}\}/.exec(text.replace(PLACEHOLDER, ''))?.[0];

/**
 * A sample event as a request made at `now`: its time placeholders filled, and an HTTP event's
 * `requestContext.time`/`timeEpoch` set to that moment, as API Gateway stamps a request it receives.
 */
export const sampleEventAt = (text: string, now: number): unknown => {
  const unknown = unknownPlaceholder(text);
  if (unknown !== undefined)
    throw new Error(`Unknown placeholder ${unknown}: use {{now}}, {{now-1h}}, {{now-7d:date}}, {{now:ms}}`);
  const event: unknown = JSON.parse(fillTimes(text, now));
  const context = (event as { requestContext?: Record<string, unknown> } | null)?.requestContext;
  if (context && typeof context.timeEpoch === 'number') {
    context.timeEpoch = now;
    context.time = new Date(now).toISOString();
  }
  return event;
};

/** The sample event in `path`, as a request made now (or at `now`). */
export const readSampleEvent = (path: string, now = Date.now()): unknown =>
  sampleEventAt(readFileSync(path, 'utf8'), now);
