import type { Metrics } from '../../../shared/domain/insights/metrics.ts';
import type { ActivityChange } from '../../../shared/domain/lifecycle/activity.ts';

/**
 * The brute-force truth the metrics must equal: a recount over the final state of every record,
 * written from the metric rules without the production code's counters.
 */
export const recount = (
  records: readonly ActivityChange[],
  scope: { orgId: string; brandSlug?: string },
  query: { startDate?: string; endDate?: string },
  today: string,
): Metrics => {
  const brandLevel = scope.brandSlug !== undefined;
  const rows = records
    .filter((r) => r.organization === scope.orgId && !r.deleted)
    .filter((r) => !brandLevel || r.brands.includes(scope.brandSlug as string))
    .map((r) => {
      const day = (brandLevel && r.kind === 'takedown' ? r.updatedAt : r.createdAt).slice(0, 10);
      const blockedType =
        r.kind === 'threat' && ['BLOCKED', 'APPROVED', 'AUTO_APPROVED'].includes(r.status) ? r.assetType : undefined;
      const row = {
        day,
        report: r.kind === 'report',
        blockedType,
        watchlisted: !brandLevel && r.kind === 'threat' && r.watchlisted,
        filed: r.kind === 'takedown',
        completed: r.kind === 'takedown' && r.status === 'COMPLETED',
      };
      return { ...row, active: row.report || row.watchlisted || row.filed || blockedType !== undefined };
    })
    .filter((row) => row.active);

  const end = query.endDate !== undefined && query.endDate < today ? query.endDate : today;
  const inRange = rows.filter((row) => row.day <= end && (query.startDate === undefined || row.day >= query.startDate));
  const count = (keep: (row: (typeof rows)[number]) => boolean) => inRange.filter(keep).length;
  const blockedOf = (types: readonly string[], include: boolean) =>
    count((row) => row.blockedType !== undefined && types.includes(row.blockedType) === include);
  const byType = new Map<string, number>();
  for (const row of inRange) if (row.blockedType) byType.set(row.blockedType, (byType.get(row.blockedType) ?? 0) + 1);

  const firstActive = rows.map((row) => row.day).sort()[0];
  const days = firstActive === undefined ? [] : daysBetween(later(query.startDate, firstActive), end);

  return {
    metrics: {
      reports: count((row) => row.report),
      newThreats: count((row) => row.blockedType !== undefined),
      threatsWatchlisted: count((row) => row.watchlisted),
      takedownsFiled: count((row) => row.filed),
      takedownsCompleted: count((row) => row.completed),
      domainThreats: blockedOf(['URL', 'PAGE'], true),
      twitterThreats: blockedOf(['TWITTER'], true),
      telegramThreats: blockedOf(['TELEGRAM'], true),
      otherThreats: blockedOf(['URL', 'PAGE', 'TWITTER', 'TELEGRAM'], false),
    },
    blockedByType: byCountThenName(byType),
    blockedByDay: days.map((date) => ({
      date,
      count: count((row) => row.day === date && row.blockedType !== undefined),
    })),
  };
};

type DayCounters = Readonly<Record<string, number>>;

/**
 * The truth for raw day counters (`reports`, `watchlisted`, `takedownsFiled`, `takedownsCompleted`,
 * `threats_<TYPE>`), summed day by day and counter by counter as the published metrics define each.
 */
export const recountCounters = (
  days: Readonly<Record<string, DayCounters>>,
  query: { startDate?: string; endDate?: string },
  today: string,
): Metrics => {
  const end = query.endDate !== undefined && query.endDate < today ? query.endDate : today;
  const inRange = Object.entries(days).filter(
    ([day]) => day <= end && (query.startDate === undefined || day >= query.startDate),
  );
  const sum = (pick: (name: string) => boolean, only: (day: string) => boolean = () => true) => {
    let total = 0;
    for (const [day, counters] of inRange) {
      if (!only(day)) continue;
      for (const [name, value] of Object.entries(counters)) if (pick(name)) total += value;
    }
    return total;
  };
  const threat = (types: readonly string[], include: boolean) => (name: string) =>
    name.startsWith('threats_') && types.includes(name.slice('threats_'.length)) === include;
  const anyThreat = threat([], false);
  const byType = new Map<string, number>();
  for (const [, counters] of inRange) {
    for (const [name, value] of Object.entries(counters)) {
      const type = name.slice('threats_'.length);
      if (anyThreat(name)) byType.set(type, (byType.get(type) ?? 0) + value);
    }
  }
  const active = Object.entries(days)
    .filter(([, counters]) => Object.values(counters).some((value) => value !== 0))
    .map(([day]) => day)
    .sort();
  const firstActive = active[0];
  const series = firstActive === undefined ? [] : daysBetween(later(query.startDate, firstActive), end);

  return {
    metrics: {
      reports: sum((name) => name === 'reports'),
      newThreats: sum(anyThreat),
      threatsWatchlisted: sum((name) => name === 'watchlisted'),
      takedownsFiled: sum((name) => name === 'takedownsFiled'),
      takedownsCompleted: sum((name) => name === 'takedownsCompleted'),
      domainThreats: sum(threat(['URL', 'PAGE'], true)),
      twitterThreats: sum(threat(['TWITTER'], true)),
      telegramThreats: sum(threat(['TELEGRAM'], true)),
      otherThreats: sum(threat(['URL', 'PAGE', 'TWITTER', 'TELEGRAM'], false)),
    },
    blockedByType: byCountThenName(new Map([...byType].filter(([, count]) => count > 0))),
    blockedByDay: series.map((date) => ({ date, count: sum(anyThreat, (day) => day === date) })),
  };
};

const later = (bound: string | undefined, day: string): string => (bound !== undefined && bound > day ? bound : day);

/** Every `YYYY-MM-DD` from `from` to `to`, inclusive; empty when `from` is after `to`. */
const daysBetween = (from: string, to: string): string[] => {
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 86_400_000) {
    days.push(new Date(ms).toISOString().slice(0, 10));
  }
  return days;
};

const byCountThenName = (counts: Map<string, number>): Metrics['blockedByType'] =>
  [...counts]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
