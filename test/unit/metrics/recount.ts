import type { ActivityChange } from '../../../shared/domain/activity.ts';
import type { Metrics } from '../../../shared/domain/metrics.ts';

/**
 * The brute-force truth the metrics must equal: a recount over the final state of every record,
 * written from the rules of DESIGN.md without the production code's counters.
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
        report: r.kind === 'report' ? 1 : 0,
        blockedType,
        watchlisted: !brandLevel && r.kind === 'threat' && r.watchlisted ? 1 : 0,
        filed: r.kind === 'takedown' ? 1 : 0,
        completed: r.kind === 'takedown' && r.status === 'COMPLETED' ? 1 : 0,
      };
      return { ...row, active: row.report + row.watchlisted + row.filed + (blockedType ? 1 : 0) > 0 };
    })
    .filter((row) => row.active);

  const end = query.endDate !== undefined && query.endDate < today ? query.endDate : today;
  const inRange = rows.filter((row) => row.day <= end && (query.startDate === undefined || row.day >= query.startDate));
  const sum = (pick: (row: (typeof rows)[number]) => number) => inRange.reduce((total, row) => total + pick(row), 0);
  const byType = new Map<string, number>();
  for (const row of inRange) if (row.blockedType) byType.set(row.blockedType, (byType.get(row.blockedType) ?? 0) + 1);
  const typeCount = (type: string) => byType.get(type) ?? 0;
  const newThreats = sum((row) => (row.blockedType ? 1 : 0));

  const firstActive = rows.map((row) => row.day).sort()[0];
  const blockedByDay: Metrics['blockedByDay'] = [];
  if (firstActive !== undefined) {
    const from = query.startDate !== undefined && query.startDate > firstActive ? query.startDate : firstActive;
    for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${end}T00:00:00Z`); ms += 86_400_000) {
      const date = new Date(ms).toISOString().slice(0, 10);
      blockedByDay.push({ date, count: inRange.filter((row) => row.day === date && row.blockedType).length });
    }
  }

  return {
    metrics: {
      reports: sum((row) => row.report),
      newThreats,
      threatsWatchlisted: sum((row) => row.watchlisted),
      takedownsFiled: sum((row) => row.filed),
      takedownsCompleted: sum((row) => row.completed),
      domainThreats: typeCount('URL') + typeCount('PAGE'),
      twitterThreats: typeCount('TWITTER'),
      telegramThreats: typeCount('TELEGRAM'),
      otherThreats: newThreats - typeCount('URL') - typeCount('PAGE') - typeCount('TWITTER') - typeCount('TELEGRAM'),
    },
    blockedByType: [...byType]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type)),
    blockedByDay,
  };
};

/** The invariants every metrics response keeps. */
export const invariantsOf = ({ metrics, blockedByType, blockedByDay }: Metrics) => ({
  newThreats: metrics.newThreats,
  sumOfFourTypes: metrics.domainThreats + metrics.twitterThreats + metrics.telegramThreats + metrics.otherThreats,
  sumOfBlockedByType: blockedByType.reduce((sum, entry) => sum + entry.count, 0),
  sumOfBlockedByDay: blockedByDay.reduce((sum, entry) => sum + entry.count, 0),
});
