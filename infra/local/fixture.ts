import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { putProfile, settingsRepository } from '../../shared/db/account-repository.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { checkIndexRepository } from '../../shared/db/check-repository.ts';
import { detectionRepository } from '../../shared/db/detection-repository.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { ensureCollectionIds } from '../../shared/db/taxii-repository.ts';
import { hashApiKey, SCOPES } from '../../shared/domain/account/api-keys.ts';
import { toBrandProfile } from '../../shared/domain/account/brand-profile.ts';
import { brandProfileFields } from '../../shared/domain/account/brand-profile-schema.ts';
import { settingsSchema } from '../../shared/domain/account/organization-settings.ts';
import { BRAND_TYPES, MEMBERSHIP_STATUSES } from '../../shared/domain/account/organizations.ts';
import { keyRateLimits, RATE_CLASSES, type RateClass } from '../../shared/domain/account/rate-limits.ts';
import { ASSET_STATUSES, ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { ASSET_EXISTS, addAssets } from '../../shared/domain/allowlist/assets.ts';
import { SLUG } from '../../shared/domain/core/limits.ts';
import { webUrl } from '../../shared/domain/core/web-url.ts';
import { changeDetectionSettings } from '../../shared/domain/detections/index.ts';
import { type ActivityChange, applyActivities, parseActivityChange } from '../../shared/domain/lifecycle/activity.ts';
import { withBackingReports } from '../../shared/domain/lifecycle/backing-reports.ts';
import { createReport } from '../../shared/domain/lifecycle/reports.ts';
import {
  brandIdOf,
  REJECT_REASONS,
  REVIEW_DECISIONS,
  REVIEW_LABELS,
  reviewProposal,
  WATCHLIST_REASONS,
} from '../../shared/domain/lifecycle/reviews.ts';
import { assetFields } from '../../shared/http/asset-schemas.ts';
import { reviewBody } from '../../shared/http/lifecycle-schemas.ts';
import { groupName, plainString } from '../../shared/http/schemas.ts';

const slug = v.pipe(v.string(), v.regex(SLUG, 'must be a lower-case slug'));
const collectionId = v.pipe(v.string(), v.uuid('must be a UUID'));
const text = (max: number) =>
  v.pipe(plainString('must be a string', 'text'), v.maxLength(max, `must be at most ${max} characters`));
const isoDateTime = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time'));
const fixtureId = v.pipe(v.number(), v.safeInteger(), v.minValue(1));
/** A key's token bucket for one rate-limit class. */
const budget = v.strictObject({
  perSecond: v.pipe(v.number(), v.finite(), v.gtValue(0, 'perSecond must be above 0')),
  burst: v.pipe(v.number(), v.safeInteger(), v.minValue(1, 'burst must be a whole number of at least 1')),
});

export const fixtureSchema = v.strictObject(
  {
    organizations: v.optional(
      v.array(
        v.strictObject({
          slug,
          name: text(255),
          featureFlags: v.optional(v.array(text(64)), []),
          // contactUrl, avatarUrl, services, healthcheckThresholds, sla, and the account fields of
          // /user/orgs (subscriptionStatus, obligatoryAdminApproval, integrations, legalDocuments,
          // trademarkRegistrations): the insights' settings.
          ...settingsSchema.entries,
          // The TAXII collections' ids, where a fixture fixes them (sample events name them); otherwise random.
          taxiiCollections: v.optional(
            v.strictObject({ blocked: collectionId, allowed: collectionId, submissions: collectionId }),
          ),
          // Detection settings, as `npm run admin -- org detections` sets them.
          detections: v.optional(
            v.strictObject({
              autoReport: v.optional(v.boolean()),
              thresholds: v.optional(v.strictObject({ low: v.number(), medium: v.number(), high: v.number() })),
            }),
          ),
          brands: v.optional(
            v.array(
              v.strictObject({
                slug,
                name: text(255),
                type: v.optional(v.picklist(BRAND_TYPES)),
                deleted: v.optional(v.boolean()),
                ...brandProfileFields,
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
          id: v.pipe(text(128), v.nonEmpty()),
          email: v.optional(text(320)),
          fullName: v.optional(text(256)),
          avatarUrl: v.optional(webUrl('avatarUrl')),
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
          key: v.pipe(
            v.string(),
            v.minLength(16, 'an API key must be at least 16 characters'),
            v.maxLength(256, 'an API key must be at most 256 characters'),
          ),
          organization: v.optional(slug),
          user: v.optional(text(128)),
          scopes: v.optional(v.array(v.picklist(SCOPES)), ['read', 'write']),
          rateLimits: v.optional(
            v.strictObject(Object.fromEntries(RATE_CLASSES.map((rateClass) => [rateClass, v.optional(budget)]))),
          ),
        }),
      ),
      [],
    ),
    groups: v.optional(v.array(v.strictObject({ organization: slug, name: groupName })), []),
    assets: v.optional(
      v.array(
        v.strictObject({
          organization: slug,
          content: assetFields.content,
          type: v.picklist(ASSET_TYPES),
          status: v.optional(v.picklist(ASSET_STATUSES), 'ALLOWED'),
          name: assetFields.name,
          description: v.optional(v.nullable(text(2048)), null),
          group: v.optional(v.nullable(groupName), null),
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

/** `assets.3.type` as `assets[3].type`: the section and the index of the entry. */
const entryPath = (dotPath: string | null | undefined): string =>
  dotPath == null ? '(root)' : dotPath.replace(/\.(\d+)(?=\.|$)/g, '[$1]');

const invalid = (problems: string[]): Error =>
  new Error(
    `Invalid fixture, nothing written (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ` +
      problems.slice(0, MAX_REPORTED).join('\n  ') +
      (problems.length > MAX_REPORTED ? `\n  … and ${problems.length - MAX_REPORTED} more` : ''),
  );
const MAX_REPORTED = 30;

/** Checks the shape of every entry; throws naming each bad entry by section and index. */
export const parseFixture = (input: unknown): Fixture => {
  const result = v.safeParse(fixtureSchema, input);
  if (!result.success) {
    throw invalid(result.issues.map((issue) => `${entryPath(v.getDotPath(issue))}: ${issue.message}`));
  }
  const problems = result.output.apiKeys.flatMap((apiKey, i) =>
    (apiKey.organization === undefined) === (apiKey.user === undefined)
      ? [`apiKeys[${i}]: needs exactly one of "organization" or "user"`]
      : [],
  );
  if (problems.length > 0) throw invalid(problems);
  return result.output;
};

/** Answers each distinct question once. */
const memo = <T>(ask: (key: string) => Promise<T>) => {
  const answers = new Map<string, Promise<T>>();
  return (key: string): Promise<T> => {
    let answer = answers.get(key);
    if (!answer) {
      answer = ask(key);
      answers.set(key, answer);
    }
    return answer;
  };
};

/**
 * Checks every reference (organization, brand, user, group, and a review's proposal) against the
 * fixture and the table, parses every activity entry and checks every review's conditional
 * fields, before anything is written: a fixture with one bad entry writes nothing. Returns the
 * parsed activity.
 */
export const validateFixture = async (
  db: DynamoDBDocumentClient,
  table: string,
  fixture: Fixture,
): Promise<ActivityChange[]> => {
  const directory = directoryRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const inFixture = {
    orgs: new Set(fixture.organizations.map((org) => org.slug)),
    brands: new Set(fixture.organizations.flatMap((org) => org.brands.map((brand) => `${org.slug}/${brand.slug}`))),
    users: new Set(fixture.users.map((user) => user.id)),
    groups: new Set(fixture.groups.map((group) => `${group.organization}/${group.name}`)),
  };
  const orgExists = memo(
    async (slug) => inFixture.orgs.has(slug) || (await directory.findOrganization(slug)) !== undefined,
  );
  const userExists = memo(async (id) => inFixture.users.has(id) || (await directory.userExists(id)));
  const brandExists = memo(async (ref) => {
    const [org = '', brand = ''] = ref.split('/');
    return inFixture.brands.has(ref) || (await directory.findBrand(org, brand)) !== undefined;
  });
  const tableGroups = memo(async (org) => new Set((await groups.list(org)).map((group) => group.name)));
  const reported = new Set(
    fixture.reports.flatMap((report) => report.assets.map((asset) => `${report.organization}/${asset.proposalId}`)),
  );
  const activity = activityRepository(db, table);
  const proposalExists = memo(async (ref) => {
    const [organization = '', id = ''] = ref.split('/');
    return reported.has(ref) || (await activity.find({ organization, kind: 'threat', id }))?.kind === 'threat';
  });
  const problems: string[] = [];
  const org = async (where: string, slug: string) => {
    if (!(await orgExists(slug)))
      problems.push(`${where}: organization "${slug}" is neither in the fixture nor in the table`);
  };
  const brand = async (where: string, organization: string, slug: string) => {
    if (!(await brandExists(`${organization}/${slug}`)))
      problems.push(`${where}: brand "${slug}" of "${organization}" is neither in the fixture nor in the table`);
  };

  for (const [i, user] of fixture.users.entries()) {
    for (const [j, membership] of user.memberships.entries())
      await org(`users[${i}].memberships[${j}]`, membership.organization);
  }
  for (const [i, apiKey] of fixture.apiKeys.entries()) {
    if (apiKey.organization !== undefined) await org(`apiKeys[${i}]`, apiKey.organization);
    if (apiKey.user !== undefined && !(await userExists(apiKey.user))) {
      problems.push(`apiKeys[${i}]: user "${apiKey.user}" is neither in the fixture nor in the table`);
    }
  }
  for (const [i, group] of fixture.groups.entries()) await org(`groups[${i}]`, group.organization);
  for (const [i, asset] of fixture.assets.entries()) {
    await org(`assets[${i}]`, asset.organization);
    if (asset.group && !inFixture.groups.has(`${asset.organization}/${asset.group}`)) {
      const existing = (await orgExists(asset.organization)) ? await tableGroups(asset.organization) : new Set();
      if (!existing.has(asset.group)) {
        problems.push(`assets[${i}]: group "${asset.group}" is neither in the fixture's groups nor in the table`);
      }
    }
  }
  const changes: ActivityChange[] = [];
  for (const [i, entry] of fixture.activity.entries()) {
    let change: ActivityChange;
    try {
      change = parseActivityChange(entry);
    } catch (error) {
      problems.push(`activity[${i}]: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    changes.push(change);
    await org(`activity[${i}]`, change.organization);
    for (const slug of change.brands) await brand(`activity[${i}]`, change.organization, slug);
  }
  for (const [i, report] of fixture.reports.entries()) await org(`reports[${i}]`, report.organization);
  for (const [i, review] of fixture.reviews.entries()) {
    const where = `reviews[${i}]`;
    await org(where, review.organization);
    if (review.brand !== undefined) await brand(where, review.organization, review.brand);
    if (!(await proposalExists(`${review.organization}/${review.proposalId}`))) {
      problems.push(
        `${where}: proposal ${review.proposalId} of "${review.organization}" is neither in the fixture's reports nor in the table`,
      );
    }
    const fields = reviewFieldsProblem(review);
    if (fields !== undefined) problems.push(`${where}: ${fields}`);
  }
  if (problems.length > 0) throw invalid(problems);
  return changes;
};

/** The review's fields as the API checks them (a label for an approval, a reason for a rejection …), with placeholder ids. */
const reviewFieldsProblem = ({
  organization: _,
  proposalId: __,
  brand,
  createdAt: ___,
  ...decision
}: Fixture['reviews'][number]): string | undefined => {
  const result = v.safeParse(reviewBody, { ...decision, assetId: 1, ...(brand === undefined ? {} : { brandId: 1 }) });
  return result.success ? undefined : result.issues[0].message;
};

type Log = (line: string) => void;

/** Entries between two progress lines when a section is long. */
const PROGRESS_EVERY = 1000;

/** Loads a fixture after validating all of it; loading the same fixture again changes nothing. */
export const loadFixture = async (db: DynamoDBDocumentClient, table: string, fixture: Fixture, log: Log) => {
  // A threat that blocks without naming its report gets one, so every blocking verdict's report link leads somewhere.
  const suffixes = shippedSuffixes();
  const changes = withBackingReports(suffixes, await validateFixture(db, table, fixture));
  const progress = (section: string, done: number, total: number) => {
    if (total > PROGRESS_EVERY && done % PROGRESS_EVERY === 0 && done < total)
      log(`${section}: ${done} of ${total} ...`);
  };
  const directory = directoryRepository(db, table);
  const apiKeys = apiKeyRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const assets = assetRepository(db, table);

  for (const org of fixture.organizations) {
    // Ids are set once: given ones first, so the organization's own random ids do not take their place.
    if (org.taxiiCollections) await ensureCollectionIds(db, table, org.slug, org.taxiiCollections);
    await directory.putOrganization({ slug: org.slug, name: org.name, featureFlags: org.featureFlags });
    for (const { slug, name, type, deleted, ...profile } of org.brands) {
      await directory.putBrand({
        orgId: org.slug,
        slug,
        name,
        ...(type === undefined ? {} : { type }),
        ...(deleted === undefined ? {} : { deleted }),
        ...toBrandProfile({ orgId: org.slug, slug }, profile),
      });
    }
    const { slug: _, name: __, featureFlags: ___, brands: ____, detections, ...settings } = org;
    if (Object.keys(settings).length > 0) await settingsRepository(db, table).put(org.slug, settings);
    if (detections) await changeDetectionSettings(detectionRepository(db, table), org.slug, detections);
  }
  log(`organizations: ${fixture.organizations.length} written`);

  for (const user of fixture.users) {
    await directory.putUser(user.id);
    if (user.email !== undefined || user.fullName !== undefined || user.avatarUrl !== undefined) {
      await putProfile(db, table, user.id, { email: user.email, fullName: user.fullName, avatarUrl: user.avatarUrl });
    }
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
    const rateLimits = keyRateLimits(apiKey.rateLimits);
    const hash = hashApiKey(apiKey.key);
    if (await apiKeys.put(hash, { ...record, ...(rateLimits ? { rateLimits } : {}) })) newKeys++;
    // A key seeded before keeps its record, but takes the fixture's limits (the same values change nothing).
    else
      for (const [rateClass, limit] of Object.entries(rateLimits ?? {})) {
        await apiKeys.setRateLimit(hash, rateClass as RateClass, limit);
      }
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
  for (const [i, asset] of fixture.assets.entries()) {
    progress('assets', i, fixture.assets.length);
    const groupId = asset.group ? (groupIds.get(groupKey(asset.organization, asset.group)) ?? null) : null;
    const result = await addAssets(suffixes, assets, groups, asset.organization, [
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
    const [outcome] = result.results;
    if (outcome?.success) added++;
    else if (outcome?.error !== ASSET_EXISTS) throw new Error(`Asset ${asset.content}: ${outcome?.error}`);
  }
  log(`assets: ${added} added, ${fixture.assets.length - added} already present`);

  const store = activityRepository(db, table);
  const totals = { applied: 0, ignored: 0 };
  for (let start = 0; start < changes.length; start += PROGRESS_EVERY) {
    progress('activity', start, changes.length);
    const { applied, ignored } = await applyActivities(suffixes, store, changes.slice(start, start + PROGRESS_EVERY));
    totals.applied += applied;
    totals.ignored += ignored;
  }
  log(`activity: ${totals.applied} applied, ${totals.ignored} already applied or superseded`);

  const verdicts = checkIndexRepository(db, table, { ttlMs: 0 });
  let newReports = 0;
  for (const { organization, id, createdAt, assets: reported, ...text } of fixture.reports) {
    if (await store.find({ organization, kind: 'report', id: String(id) })) continue;
    const report = { ...text, assets: reported.map(({ content }) => ({ content, status: 'BLOCKED' as const })) };
    const ids = { reportId: id, proposalIds: reported.map((asset) => asset.proposalId) };
    const at = new Date(createdAt).toISOString();
    await createReport({ store, verdicts, directory, ignoredHosts: [], suffixes }, organization, report, {
      now: at,
      ids,
    });
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
    const deps = { store, verdicts, directory, dailyLimit: 0, suffixes };
    await reviewProposal(deps, organization, proposalId, input, Date.parse(createdAt));
    newReviews++;
  }
  log(`reviews: ${newReviews} made, ${fixture.reviews.length - newReviews} already made`);
};
