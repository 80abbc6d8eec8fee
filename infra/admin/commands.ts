import { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { config } from '../../shared/config.ts';
import { dropLegacyInsightCounters, migrateActivityItems } from '../../shared/db/activity-migration.ts';
import { activityRepository } from '../../shared/db/activity-repository.ts';
import { shippedSuffixes } from '../../shared/db/adapters/public-suffix-file.ts';
import { apiKeyRepository } from '../../shared/db/api-key-repository.ts';
import { assetGroupRepository } from '../../shared/db/asset-group-repository.ts';
import { assetRepository } from '../../shared/db/asset-repository.ts';
import { listDetectionConfigs } from '../../shared/db/detection-migration.ts';
import { moveDirectoryItems } from '../../shared/db/directory-migration.ts';
import { directoryRepository } from '../../shared/db/directory-repository.ts';
import { migrateTaxiiCollections } from '../../shared/db/taxii-migration.ts';
import { reindexExport } from '../../shared/db/verdict-change.ts';
import { sealClearWebhookHeaders } from '../../shared/db/webhook-repository.ts';
import { kmsSealer, localSealer } from '../../shared/db/webhook-secrets.ts';
import { generateApiKey, hashApiKey, SCOPES, type Scope } from '../../shared/domain/account/api-keys.ts';
import { BRAND_PROFILE_KEYS, toBrandProfile } from '../../shared/domain/account/brand-profile.ts';
import { type BrandProfileInput, brandProfileSchema } from '../../shared/domain/account/brand-profile-schema.ts';
import { MEMBERSHIP_STATUSES, type MembershipStatus } from '../../shared/domain/account/organizations.ts';
import { isBudget, RATE_CLASSES } from '../../shared/domain/account/rate-limits.ts';
import { ASSET_TYPES } from '../../shared/domain/allowlist/asset-types.ts';
import { addAssets, removeAsset, updateAsset } from '../../shared/domain/allowlist/assets.ts';
import { createGroup } from '../../shared/domain/allowlist/groups.ts';
import { SLUG } from '../../shared/domain/core/limits.ts';
import { assetFields } from '../../shared/http/asset-schemas.ts';
import { groupName } from '../../shared/http/schemas.ts';
import { ACTIVITY_USAGE, activityCommand } from './activity-commands.ts';
import { BLOCKLIST_USAGE } from './blocklist-commands.ts';
import { DETECTION_USAGE, detectionsCommand } from './detection-commands.ts';
import { INSIGHTS_USAGE, insightsCommand } from './insights-commands.ts';
import { disputesCommand, INTAKE_USAGE } from './intake-commands.ts';
import { LIFECYCLE_USAGE, lifecycleCommand } from './lifecycle-commands.ts';
import { LOG_LIST_USAGE } from './log-list-commands.ts';
import { WEBHOOK_USAGE } from './webhook-listen.ts';

export const USAGE = `Usage: npm run admin -- [--table <name>] <command>

Without --table the local table is used (the one 'npm start' serves, or .data/ directly).
With --table the named table in AWS is used (credentials and region from the usual AWS settings).

  org create <slug> --name <name> [--flags brands-metrics,...]
  brand create <org> <slug> --name <name>
  brand set <org> <slug> '<json>'      set profile fields of a brand (the others stay), e.g.
                                       '{"includedTerms":["acme"],"tickers":["ACME"],"websiteUrl":"https://acme.com"}'
                                       (${BRAND_PROFILE_KEYS.join(', ')})
  user create <userId>
  membership set <userId> <org> <${MEMBERSHIP_STATUSES.join('|')}>
  key create (--org <slug> | --user <userId>) [--scopes read,write]   prints the key once
  key revoke <key>
  key limit <key|sha256> <${RATE_CLASSES.join('|')}> <perSecond> <burst>
                                       the key's own budget for one route class (the full key or its
                                       SHA-256 digest: keys are stored only by digest, so a prefix finds nothing)
  group create <org> <name>
  asset create <org> <type> <content> [--name <name>] [--description <text>] [--group <groupId>]
  asset assign <org> <assetId> <groupId|none>
  asset delete <org> <assetId>
  verdicts reindex                     put check-index entries written before POST /asset/list existed into its index
  migrate [--copy]                     move organization and brand items to their own partition (ORGANIZATION#):
                                       --copy before deploying the version that reads them there (copies, keeps
                                       the old items), then without it after the deploy (removes the old items,
                                       then runs 'migrate lifecycle')
  migrate lifecycle                    rewrite reports, threats and takedowns stored by earlier versions: published
                                       takedown statuses, listings ordered by numeric id, insight counters and
                                       open-work gauges in their own items (rerun it at any time)
  migrate taxii                        after deploying the TAXII collections: give organizations created before them their
                                       collection ids, and put their blocked threats and allowlist into them (rerun it at any time)
  migrate webhooks                     seal the header values of webhooks stored before they were sealed (with
                                       --table: WEBHOOK_SECRETS_KEY_ID names the stage's webhook KMS key)
${ACTIVITY_USAGE}
${LIFECYCLE_USAGE}
${INTAKE_USAGE}
${BLOCKLIST_USAGE}
${INSIGHTS_USAGE}
${DETECTION_USAGE}
${LOG_LIST_USAGE}
${WEBHOOK_USAGE}`;

/** The error first and alone, so it is what the operator sees; the commands are one flag away. */
const fail = (message: string): never => {
  throw new Error(`${message} (npm run admin -- --help lists the commands)`);
};

const parseBrandProfile = (text: string): BrandProfileInput => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('The profile fields must be a JSON object');
  }
  const result = v.safeParse(brandProfileSchema, json);
  if (result.success) return result.output;
  return fail(result.issues.map((issue) => `${v.getDotPath(issue) ?? '(profile)'}: ${issue.message}`).join('; '));
};

const slugOf = (text: string, what: string): string =>
  SLUG.test(text) ? text : fail(`${what} must be a lower-case slug of at most 63 characters`);

const positive = (text: string | undefined, what: string): number => {
  if (!text || !/^[1-9]\d{0,15}$/.test(text)) fail(`${what} must be a positive integer`);
  return Number(text);
};

export const runAdminCommand = async (
  db: DynamoDBDocumentClient,
  table: string,
  words: string[],
  flags: Record<string, string | undefined>,
  progress: (line: string) => void = () => undefined,
) => {
  const directory = directoryRepository(db, table);
  const apiKeys = apiKeyRepository(db, table);
  const groups = assetGroupRepository(db, table);
  const assets = assetRepository(db, table);
  const [noun, verb, ...rest] = words;
  const need = (index: number, what: string): string => rest[index] ?? fail(`Missing ${what}`);
  /** Every command that names an organization or a user refuses one that does not exist, before writing. */
  const existingOrg = async (index: number): Promise<string> => {
    const orgId = need(index, 'organization');
    if (!(await directory.findOrganization(orgId))) fail(`Organization ${orgId} does not exist`);
    return orgId;
  };
  const existingUser = async (userId: string): Promise<string> => {
    if (!(await directory.userExists(userId))) fail(`User ${userId} does not exist`);
    return userId;
  };

  if (noun === 'report' || noun === 'proposal') return lifecycleCommand(db, table, words);
  if (noun === 'disputes') return disputesCommand(db, table, words, flags.note);
  if (
    `${noun} ${verb}` === 'org threshold' ||
    `${noun} ${verb}` === 'org settings' ||
    `${noun} ${verb}` === 'user profile'
  ) {
    return insightsCommand(db, table, words);
  }
  if (noun === 'org' && verb === 'detections') return detectionsCommand(db, table, await existingOrg(0), rest.slice(1));
  if (noun === 'verdicts' && verb === 'reindex') return JSON.stringify(await reindexExport(db, table));
  const migrateLifecycle = async () => {
    const { rewritten, current, changedMeanwhile, insightsCounted, gaugesCounted, histogramsCounted } =
      await migrateActivityItems(db, table, progress);
    const { dayItems, monthItems } = await dropLegacyInsightCounters(db, table);
    return (
      `Lifecycle records: ${rewritten} rewritten (${insightsCounted} counted into the insight day items, ` +
      `${gaugesCounted} into the gauge items, ${histogramsCounted} into the histogram items), ` +
      `${current} already current, ${changedMeanwhile} changed by a writer meanwhile; ` +
      `${dayItems} metrics day items cleared of insight counters, ${monthItems} insight month items of gauges and emptied buckets`
    );
  };
  if (noun === 'migrate' && verb === 'lifecycle') return migrateLifecycle();
  if (noun === 'migrate' && verb === 'detections') {
    const { configs, listed, alreadyListed } = await listDetectionConfigs(db, table, Date.now());
    return `Detection configs: ${configs} read, ${listed} listed for the scheduler and feeds, ${alreadyListed} listed before`;
  }
  if (noun === 'migrate' && verb === 'taxii') {
    const { organizations, collectionIdsGiven, blockedAdded, allowedAdded, alreadyPresent } =
      await migrateTaxiiCollections(db, table, progress);
    return (
      `TAXII collections: ${organizations} organizations (${collectionIdsGiven} given collection ids); ` +
      `${blockedAdded} blocked threats and ${allowedAdded} allowlist entries added, ${alreadyPresent} already present`
    );
  }
  if (noun === 'migrate' && verb === 'webhooks') {
    const setting = config.webhookSecrets;
    const sealer = 'aws' in setting ? kmsSealer(new KMSClient({}), setting.aws) : localSealer(setting.local);
    const { webhooks, rewritten, changedMeanwhile } = await sealClearWebhookHeaders(db, table, sealer);
    return `Webhooks: ${webhooks} read, ${rewritten} with clear header values sealed, ${changedMeanwhile} changed meanwhile (run again)`;
  }
  if (noun === 'migrate' && verb === undefined) {
    const keepOld = flags.copy !== undefined;
    const { scanned, moved, alreadyMoved } = await moveDirectoryItems(db, table, progress, { keepOld });
    return keepOld
      ? `Organizations and brands: ${moved} copied, ${alreadyMoved} copied before; old items kept; ${scanned} items scanned`
      : `Organizations and brands: ${moved} moved, ${alreadyMoved} copied by an earlier run (old item removed now); ${scanned} items scanned. ${await migrateLifecycle()}`;
  }
  if (noun === 'activity') {
    await activityCommand(words.slice(1), activityRepository(db, table));
    return 'Done';
  }
  switch (`${noun} ${verb}`) {
    case 'org create': {
      const slug = slugOf(need(0, 'organization slug'), 'organization slug');
      const flagList = flags.flags ? flags.flags.split(',').filter(Boolean) : [];
      await directory.putOrganization({ slug, name: flags.name ?? slug, featureFlags: flagList });
      return `Organization ${slug} saved`;
    }
    case 'brand create': {
      const orgId = await existingOrg(0);
      const slug = slugOf(need(1, 'brand slug'), 'brand slug');
      // Saving a brand again renames it; its profile stays.
      const existing = await directory.findBrand(orgId, slug);
      await directory.putBrand({ ...existing, orgId, slug, name: flags.name ?? slug });
      return `Brand ${slug} of ${orgId} saved`;
    }
    case 'brand set': {
      const orgId = await existingOrg(0);
      const slug = slugOf(need(1, 'brand slug'), 'brand slug');
      const brand = (await directory.findBrand(orgId, slug)) ?? fail(`Brand ${slug} of ${orgId} does not exist`);
      const profile = parseBrandProfile(need(2, 'profile fields as JSON'));
      await directory.putBrand({ ...brand, ...toBrandProfile(brand, profile) });
      return `Brand ${slug} of ${orgId} saved: ${Object.keys(profile).join(', ') || 'nothing'} set`;
    }
    case 'user create':
      await directory.putUser(need(0, 'user id'));
      return `User ${rest[0]} saved`;
    case 'membership set': {
      const status = need(2, 'status');
      if (!MEMBERSHIP_STATUSES.includes(status as MembershipStatus)) fail(`Unknown membership status ${status}`);
      const userId = await existingUser(need(0, 'user id'));
      const orgId = await existingOrg(1);
      await directory.putMembership({ userId, orgId, status: status as MembershipStatus });
      return `Membership of ${userId} in ${orgId}: ${status}`;
    }
    case 'key create': {
      const scopes = (flags.scopes ?? 'read,write').split(',').filter(Boolean);
      if (scopes.some((scope) => !SCOPES.includes(scope as Scope))) fail('Scopes are read and write');
      if (!flags.org === !flags.user) fail('Give exactly one of --org or --user');
      if (flags.org && !(await directory.findOrganization(flags.org))) fail(`Organization ${flags.org} does not exist`);
      if (flags.user) await existingUser(flags.user);
      const key = generateApiKey();
      const record = flags.org
        ? { kind: 'organization' as const, orgId: flags.org, scopes: scopes as Scope[], revoked: false }
        : { kind: 'user' as const, userId: flags.user as string, scopes: scopes as Scope[], revoked: false };
      await apiKeys.put(hashApiKey(key), record);
      return `API key (shown once, store it now): ${key}`;
    }
    case 'key revoke': {
      const revoked = await apiKeys.revoke(hashApiKey(need(0, 'key')));
      if (!revoked) fail('No such key');
      return 'Key revoked (cached lookups expire within 60 s)';
    }
    case 'key limit': {
      const given = need(0, 'key');
      const rateClass =
        RATE_CLASSES.find((known) => known === need(1, 'route class')) ??
        fail(`Route classes are ${RATE_CLASSES.join(', ')}`);
      const budget = { perSecond: Number(need(2, 'perSecond')), burst: Number(need(3, 'burst')) };
      if (!isBudget(budget)) fail('perSecond must be a number above 0 and burst a whole number of at least 1');
      // A 64-digit hex argument is tried as the digest first, then as a key of that spelling.
      const digest = /^[0-9a-f]{64}$/.test(given) && (await apiKeys.setRateLimit(given, rateClass, budget));
      if (!digest && !(await apiKeys.setRateLimit(hashApiKey(given), rateClass, budget))) fail('No such key');
      return `Key limit for ${rateClass}: ${budget.perSecond}/s, burst ${budget.burst} (cached lookups take it within 60 s)`;
    }
    case 'group create': {
      const orgId = await existingOrg(0);
      const name = v.parse(groupName, need(1, 'group name'));
      const group = await createGroup(groups, orgId, name);
      return `Group ${group.id} "${group.name}" created`;
    }
    case 'asset create': {
      const [type, content] = [need(1, 'asset type'), need(2, 'content')];
      const assetType = v.parse(v.picklist(ASSET_TYPES, `Unknown asset type ${type}`), type);
      v.parse(assetFields.content, content);
      const orgId = await existingOrg(0);
      const groupId = flags.group ? positive(flags.group, 'group id') : null;
      const result = await addAssets(shippedSuffixes(), assets, groups, orgId, [
        { content, type: assetType, name: flags.name, description: flags.description ?? null, groupId },
      ]);
      const [outcome] = result.results;
      return outcome?.success ? `Asset ${outcome.id} created` : fail(`Asset not created: ${outcome?.error}`);
    }
    case 'asset assign': {
      const [assetId, group] = [need(1, 'asset id'), need(2, 'group id or none')];
      const orgId = await existingOrg(0);
      const groupId = group === 'none' ? null : positive(group, 'group id');
      const view = await updateAsset(assets, groups, orgId, positive(assetId, 'asset id'), { groupId });
      return `Asset ${view.id} is now in ${view.group ? `group ${view.group.id} "${view.group.name}"` : 'no group'}`;
    }
    case 'asset delete': {
      const orgId = await existingOrg(0);
      const id = await removeAsset(assets, orgId, positive(need(1, 'asset id'), 'asset id'));
      return `Asset ${id} removed`;
    }
    default:
      return fail(words.length === 0 ? 'Missing command' : `Unknown command: ${words.join(' ')}`);
  }
};
