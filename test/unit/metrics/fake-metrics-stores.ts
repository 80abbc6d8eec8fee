import type { Membership, Organization } from '../../../shared/domain/account/organizations.ts';
import { medianWindowOf } from '../../../shared/domain/insights/insight-counters.ts';
import type { DayCounters, MetricsScope, MetricsStores } from '../../../shared/domain/insights/metrics.ts';

type Days = Record<string, Record<string, number>>;

/** Day counters per scope (`acme` or `acme/acme-wallet`), and the directory records metrics consult. */
export const fakeMetricsStores = (
  daysByScope: Record<string, Days>,
  {
    organizations = [{ slug: 'acme', name: 'Acme', featureFlags: ['brands-metrics'] }],
    brands = { acme: ['acme-wallet'] },
    memberships = [],
  }: { organizations?: Organization[]; brands?: Record<string, string[]>; memberships?: Membership[] } = {},
) => {
  const reads = { ranges: 0, probes: 0 };
  const daysOf = (scope: MetricsScope): [string, Record<string, number>][] =>
    Object.entries(daysByScope[scope.brandSlug ? `${scope.orgId}/${scope.brandSlug}` : scope.orgId] ?? {}).sort(
      ([a], [b]) => a.localeCompare(b),
    );
  const stores: MetricsStores = {
    metrics: {
      async days(scope, from, to) {
        reads.ranges++;
        return daysOf(scope)
          .filter(([day]) => (from === undefined || day >= from) && day <= to)
          .map(([day, counters]): DayCounters => ({ day, counters }));
      },
      async sums(scope, from, to) {
        const sums: Record<string, number> = {};
        for (const { counters } of await this.days(scope, from, to)) {
          for (const [name, value] of Object.entries(counters)) sums[name] = (sums[name] ?? 0) + value;
        }
        return sums;
      },
      async medianWindows(orgId, from, to, histograms) {
        const sums = await this.sums({ orgId, insights: true }, from, to);
        return histograms.map((ref) => medianWindowOf(sums, ref));
      },
      async hasActivityBefore(scope, day) {
        reads.probes++;
        return daysOf(scope).some(([d, counters]) => d < day && Object.values(counters).some((v) => v !== 0));
      },
    },
    directory: {
      async findOrganization(slug) {
        return organizations.find((org) => org.slug === slug);
      },
      async findBrand(orgId, slug) {
        return brands[orgId]?.includes(slug) ? { orgId, slug, name: slug } : undefined;
      },
      async findMembership(userId, orgId) {
        return memberships.find((m) => m.userId === userId && m.orgId === orgId);
      },
    },
  };
  return { stores, reads };
};
