import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { applyActivities, parseActivityChange } from '../../shared/domain/activity.ts';
import { hashApiKey, SCOPES } from '../../shared/domain/api-keys.ts';
import { ASSET_STATUSES, ASSET_TYPES } from '../../shared/domain/asset-types.ts';
import { addAssets } from '../../shared/domain/assets.ts';
import { MAX_CONTENT_LENGTH, SLUG } from '../../shared/domain/limits.ts';
import { BRAND_TYPES, MEMBERSHIP_STATUSES } from '../../shared/domain/organizations.ts';
import { createReport } from '../../shared/domain/reports.ts';
import {
  brandIdOf,
  REJECT_REASONS,
  REVIEW_DECISIONS,
  REVIEW_LABELS,
  reviewProposal,
  WATCHLIST_REASONS,
} from '../../shared/domain/reviews.ts';
import { reviewBody } from '../../shared/http/lifecycle-schemas.ts';

const slug = v.pipe(v.string(), v.regex(SLUG, 'must be a lower-case slug'));
const isoDateTime = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time'));
const fixtureId = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

export const fixtureSchema = v.strictObject(
  {
    organizations: v.optional(
      v.array(
        v.strictObject({
          slug,
          name: v.string(),
          featureFlags: v.optional(v.array(v.string()), []),
          brands: v.optional(
            v.array(
              v.strictObject({
                slug,
                name: v.string(),
                type: v.optional(v.picklist(BRAND_TYPES)),
                deleted: v.optional(v.boolean()),
              }),
            ),
            [],
          ),
        }),
      ),
      [],
    ),
    users: v.optional(
      v.array(
        v.strictObject({
          id: v.pipe(v.string(), v.nonEmpty()),
          memberships: v.optional(
            v.array(
              v.strictObject({
                organization: slug,
                status: v.picklist(MEMBERSHIP_STATUSES),
              }),
            ),
            [],
          ),
        }),
      ),
      [],
    ),
    apiKeys: v.optional(
      v.array(
        v.strictObject({
          key: v.pipe(v.string(), v.minLength(16, 'an API key must be at least 16 characters')),
          organization: v.optional(slug),
          user: v.optional(v.string()),
          scopes: v.optional(v.array(v.picklist(SCOPES)), ['read', 'write']),
        }),
      ),
      [],
    ),
    groups: v.optional(
      v.array(v.strictObject({ organization: slug, name: v.pipe(v.string(), v.trim(), v.nonEmpty()) })),
      [],
    ),
    assets: v.optional(
      v.array(
        v.strictObject({
          organization: slug,
          content: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(MAX_CONTENT_LENGTH)),
          type: v.picklist(ASSET_TYPES),
          status: v.optional(v.picklist(ASSET_STATUSES), 'ALLOWED'),
          name: v.optional(v.string()),
          description: v.optional(v.nullable(v.string()), null),
          group: v.optional(v.nullable(v.string()), null),
          createdAt: v.optional(isoDateTime),
        }),
      ),
      [],
    ),
    activity: v.optional(v.array(v.unknown()), []),
    reports: v.optional(
      v.array(
        v.strictObject({
          organization: slug,
          id: fixtureId,
          title: v.pipe(v.string(), v.minLength(3)),
          description: v.optional(v.string(), ''),
          createdAt: isoDateTime,
          assets: v.pipe(
            v.array(v.strictObject({ content: v.pipe(v.string(), v.trim(), v.nonEmpty()), proposalId: fixtureId })),
            v.minLength(1),
            v.maxLength(100),
          ),
        }),
      ),
      [],
    ),
    reviews: v.optional(
      v.array(
        v.strictObject({
          organization: slug,
          proposalId: fixtureId,
          decision: v.picklist(REVIEW_DECISIONS),
          label: v.optional(v.picklist(REVIEW_LABELS)),
          brand: v.optional(slug),
          rejectReason: v.optional(v.picklist(REJECT_REASONS)),
          watchlistReason: v.optional(v.picklist(WATCHLIST_REASONS)),
          note: v.optional(v.string()),
          createdAt: isoDateTime,
        }),
      ),
      [],
    ),
  },
  'a fixture is an object with only these sections: organizations, users, apiKeys, groups, assets, activity, reports, reviews',
);
export type Fixture = v.InferOutput<typeof fixtureSchema>;

export const parseFixture = (input: unknown): Fixture => {
  const result = v.safeParse(fixtureSchema, input);
  if (result.success) {
    for (const apiKey of result.output.apiKeys) {
      if ((apiKey.organization === undefined) === (apiKey.user === undefined)) {
        throw new Error('Invalid fixture: each apiKeys entry needs exactly one of "organization" or "user"');
      }
    }
    return result.output;
  }
  const details = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('; ');
  throw new Error(`Invalid fixture: ${details}`);
};

type Log = (line: string) => void;

/** Loads a fixture; loading the same fixture again changes nothing. */
export const loadFixture = async (db: DynamoDBDocumentClient, table: string, fixture: Fixture, log: Log) => {
  // Activity and reviews are validated before anything is written, so a bad entry leaves the table untouched.
  const changes = fixture.activity.map(parseActivityChange);
  fixture.reviews.forEach(({ organization: _, proposalId, brand, createdAt: __, ...decision }, index) => {
    const result = v.safeParse(reviewBody, { ...decision, assetId: 1, ...(brand === undefined ? {} : { brandId: 1 }) });
    if (!result.success)
      throw new Error(`Invalid fixture: reviews.${index} (proposal ${proposalId}): ${result.issues[0].message}`);
  });
  const directory = directoryRepository(db, table);
  const apiKeys = apiKeyRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const assets = assetRepository(db, table);

  for (const org of fixture.organizations) {
    await directory.putOrganization({ slug: org.slug, name: org.name, featureFlags: org.featureFlags });
    for (const brand of org.brands) await directory.putBrand({ orgId: org.slug, ...brand });
  }
  log(`organizations: ${fixture.organizations.length} written`);

  for (const user of fixture.users) {
    await directory.putUser(user.id);
    for (const m of user.memberships) {
      await directory.putMembership({ userId: user.id, orgId: m.organization, status: m.status });
    }
  }
  log(`users: ${fixture.users.length} written`);

  let newKeys = 0;
  for (const apiKey of fixture.apiKeys) {
    const record = apiKey.organization
      ? { kind: 'organization' as const, orgId: apiKey.organization, scopes: apiKey.scopes, revoked: false }
      : { kind: 'user' as const, userId: apiKey.user as string, scopes: apiKey.scopes, revoked: false };
    if (await apiKeys.put(hashApiKey(apiKey.key), record)) newKeys++;
  }
  log(`apiKeys: ${newKeys} added, ${fixture.apiKeys.length - newKeys} already present (stored as SHA-256 only)`);

  const groupIds = new Map<string, number>();
  const groupKey = (org: string, name: string) => `${org}\u0000${name}`;
  const known = async (org: string) => {
    for (const group of await groups.list(org)) groupIds.set(groupKey(org, group.name), group.id);
  };
  const orgsWithGroups = new Set([...fixture.groups, ...fixture.assets].map((entry) => entry.organization));
  for (const org of orgsWithGroups) await known(org);
  let newGroups = 0;
  for (const group of fixture.groups) {
    if (groupIds.has(groupKey(group.organization, group.name))) continue;
    const created = await groups.create(group.organization, group.name);
    groupIds.set(groupKey(group.organization, group.name), created.id);
    newGroups++;
  }
  log(`groups: ${newGroups} added, ${fixture.groups.length - newGroups} already present`);

  let added = 0;
  for (const asset of fixture.assets) {
    let groupId: number | null = null;
    if (asset.group) {
      const id = groupIds.get(groupKey(asset.organization, asset.group));
      if (id === undefined)
        throw new Error(`Asset ${asset.content}: group "${asset.group}" is not in the fixture's groups`);
      groupId = id;
    }
    const result = await addAssets(assets, groups, asset.organization, [
      {
        content: asset.content,
        type: asset.type,
        status: asset.status,
        name: asset.name,
        description: asset.description,
        groupId,
        createdAt: asset.createdAt,
      },
    ]);
    added += result.created;
  }
  log(`assets: ${added} added, ${fixture.assets.length - added} already present`);

  const store = activityRepository(db, table);
  const { applied, ignored } = await applyActivities(store, changes);
  log(`activity: ${applied} applied, ${ignored} already applied or superseded`);

  const verdicts = checkIndexRepository(db, table, { ttlMs: 0 });
  let newReports = 0;
  for (const { organization, id, createdAt, assets: reported, ...text } of fixture.reports) {
    if (await store.find({ organization, kind: 'report', id: String(id) })) continue;
    const report = { ...text, assets: reported.map(({ content }) => ({ content, status: 'BLOCKED' as const })) };
    const ids = { reportId: id, proposalIds: reported.map((asset) => asset.proposalId) };
    const at = new Date(createdAt).toISOString();
    await createReport({ store, verdicts, directory, ignoredHosts: [] }, organization, report, { now: at, ids });
    newReports++;
  }
  log(`reports: ${newReports} added, ${fixture.reports.length - newReports} already present`);

  let newReviews = 0;
  for (const { organization, proposalId, brand, createdAt, ...decision } of fixture.reviews) {
    const proposal = await store.find({ organization, kind: 'threat', id: String(proposalId) });
    if (proposal?.kind !== 'threat' || proposal.status !== 'PENDING') continue;
    const input = {
      ...decision,
      assetId: proposal.assetId ?? 0,
      ...(brand === undefined ? {} : { brandId: brandIdOf({ orgId: organization, slug: brand }) }),
    };
    const deps = { store, verdicts, directory, dailyLimit: 0 };
    await reviewProposal(deps, organization, proposalId, input, Date.parse(createdAt));
    newReviews++;
  }
  log(`reviews: ${newReviews} made, ${fixture.reviews.length - newReviews} already made`);
};
