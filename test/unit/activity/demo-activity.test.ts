import { describe, expect, it } from 'vitest';
import { demoActivity } from '../../../infra/local/demo-activity.ts';
import { parseActivityChange } from '../../../shared/domain/lifecycle/activity.ts';
import { suffixes } from '../../fixtures/suffixes.ts';

const today = new Date('2026-11-21T15:30:00Z');

describe('demoActivity', () => {
  it('is the same for any time of the same UTC day', () => {
    expect(demoActivity(suffixes, new Date('2026-11-21T00:00:01Z'))).toEqual(
      demoActivity(suffixes, new Date('2026-11-21T23:59:59Z')),
    );
  });

  it('holds only valid, normalized changes of acme and its two brands', () => {
    const changes = demoActivity(suffixes, today);

    for (const change of changes) expect(parseActivityChange(change)).toEqual(change);
    expect(new Set(changes.map((c) => c.organization))).toEqual(new Set(['acme']));
    expect(new Set(changes.flatMap((c) => c.brands))).toEqual(new Set(['acme-wallet', 'acme-exchange']));
    expect(new Set(changes.map((c) => c.kind))).toEqual(new Set(['report', 'threat', 'takedown']));
    expect(changes.some((c) => c.deleted)).toBe(true);
  });

  it('places every timestamp in the 90 days before today (UTC)', () => {
    const changes = demoActivity(suffixes, today);
    const timestamps = changes.flatMap((c) => [c.createdAt, c.updatedAt]).sort();

    expect(timestamps[0]?.slice(0, 10)).toBe('2026-08-23');
    expect(timestamps.at(-1)?.slice(0, 10)).toBe('2026-11-20');
  });

  it('keeps the same record ids on another day, so a later start moves records instead of adding them', () => {
    const ids = (date: Date) => new Set(demoActivity(suffixes, date).map((c) => `${c.kind}/${c.id}`));

    expect(ids(new Date('2026-12-01T00:00:00Z'))).toEqual(ids(today));
  });
});
