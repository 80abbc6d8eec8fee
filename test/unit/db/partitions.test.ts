import { describe, expect, it } from 'vitest';
import { matchesPattern } from '../../../infra/local/write-guard.ts';
import { ROUTES, WORKER_WRITES } from '../../../infra/routes.ts';
import { key, PARTITIONS } from '../../../shared/db/keys.ts';
import { COUNTER_SHARDS } from '../../../shared/domain/insights/counters.ts';

const PATTERNS: readonly string[] = Object.values(PARTITIONS);
const OPERATOR_ONLY: readonly string[] = [PARTITIONS.organization, PARTITIONS.apiKey, PARTITIONS.user];

/**
 * Every partition key `key` builds, found by walking it: each builder called with sample
 * arguments (numbers given as digits), each `PK` and each `…Partition` result taken. A builder
 * added later is walked too, so its partition must be listed in PARTITIONS.
 */
const builtPartitions = (node: Record<string, unknown>, path = 'key'): [string, string][] =>
  Object.entries(node).flatMap(([name, value]): [string, string][] => {
    const at = `${path}.${name}`;
    const isPartition = name === 'PK' || name.endsWith('Partition');
    const result = typeof value === 'function' ? value('org-1', '2', '3') : value;
    if (typeof result === 'string') return isPartition ? [[at, result]] : [];
    if (result && typeof result === 'object') {
      const own: [string, string][] = typeof result.PK === 'string' ? [[at, result.PK]] : [];
      return typeof value === 'function' ? own : builtPartitions(result as Record<string, unknown>, at);
    }
    return [];
  });

describe('the partitions of the table, as IAM patterns', () => {
  const built = builtPartitions(key);

  it('walks every kind of item the table holds', () => {
    expect(built.length).toBeGreaterThanOrEqual(20);
  });

  it.each(built)('%s (%s) falls in exactly one partition pattern', (_, partition) => {
    expect(PATTERNS.filter((pattern) => matchesPattern(pattern, partition))).toHaveLength(1);
  });

  it.each([...Array(COUNTER_SHARDS).keys()])(
    'puts counter shard %i of an organization and of a brand in the metrics pattern, each its own partition',
    (shard) => {
      const shardKeys = [
        key.orgDay('acme', '2026-03-01', shard),
        key.brandDay('acme', 'wallet', '2026-03-01', shard),
        key.insightDay('acme', '2026-03-01', shard),
        key.insightMonth('acme', '2026-03', shard),
        key.insightGauges('acme', '2026-03', shard),
      ];
      const otherShards = [...Array(COUNTER_SHARDS).keys()]
        .filter((other) => other !== shard)
        .flatMap((other) => [
          key.orgDay('acme', '2026-03-01', other).PK,
          key.brandDay('acme', 'wallet', '', other).PK,
          key.insightDay('acme', '', other).PK,
          key.insightMonth('acme', '', other).PK,
          key.insightGauges('acme', '', other).PK,
        ]);

      for (const { PK } of shardKeys) {
        expect(PATTERNS.filter((pattern) => matchesPattern(pattern, PK))).toEqual([PARTITIONS.metrics]);
        expect(otherShards).not.toContain(PK);
      }
      expect(new Set(shardKeys.map(({ PK }) => PK)).size).toBe(shardKeys.length);
    },
  );

  it('keeps organizations and brands out of the partition of what routes write for an organization', () => {
    const organizationScoped = (partition: string) => matchesPattern(PARTITIONS.organizationScoped, partition);

    expect([key.org('acme').PK, key.brand('acme', 'wallet').PK].filter(organizationScoped)).toEqual([]);
    expect([key.group('acme', 1).PK, key.groupCounter('acme').PK].every(organizationScoped)).toBe(true);
  });

  it('has patterns no other pattern matches', () => {
    for (const pattern of PATTERNS) {
      const sample = pattern.replaceAll('*', 'x');

      expect(PATTERNS.filter((other) => matchesPattern(other, sample))).toEqual([pattern]);
    }
  });
});

describe('what the route table declares each function writes', () => {
  it.each(ROUTES)('$name declares partitions exactly when its access is write', (route) => {
    expect((route.writes ?? []).length > 0).toBe(route.access === 'write');
  });

  it.each([...ROUTES.map((route) => [route.name, route.writes ?? []] as const), ...Object.entries(WORKER_WRITES)])(
    '%s writes no API key, user, organization or brand, and names each partition once',
    (_, writes) => {
      expect(writes.filter((pattern) => OPERATOR_ONLY.includes(pattern))).toEqual([]);
      expect(new Set(writes).size).toBe(writes.length);
    },
  );
});
