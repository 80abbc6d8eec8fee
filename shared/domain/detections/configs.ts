import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.ts';
import type { Caller } from '../account/access.ts';
import type { DirectoryStore } from '../account/organizations.ts';
import { newRecordId } from '../core/ids.ts';
import { brandIdOf } from '../lifecycle/reviews.ts';
import type {
  ConfigDeps,
  ConfigListing,
  DetectionConfig,
  DetectionDeps,
  DetectionSettings,
  DetectionStore,
  OutboundCheck,
  Thresholds,
} from './model.ts';
import { checkedCron, nextCronTime, parseCron, scheduleClassOf } from './schedules.ts';
import { outboundUrlsOf, type Source, sourceOf, validateConfig } from './sources.ts';

/**
 * Refuses a config naming a URL the service may not call (a CERTSTREAM log at a loopback,
 * private or metadata address, over http, with credentials): 400 naming the field, the first
 * refused in config order; `where` is where the config is in the request (`body.`).
 */
export const checkOutbound = async (
  outbound: OutboundCheck,
  source: Source,
  config: Record<string, unknown>,
  where: string,
) => {
  const checked = await Promise.all(
    outboundUrlsOf(source, config).map(async (target) => ({ ...target, refusal: await outbound(target.url) })),
  );
  const refused = checked.find((target) => target.refusal !== undefined);
  if (refused === undefined) return;
  const path = `${where}${refused.path}`;
  const message = `${path} must be a public https URL: ${refused.refusal}`;
  throw new BadRequestError(message, { issues: [{ message, path }] });
};

const NO_ACCESS = 'API key does not have access to this organization';

/** The organization a caller acts for by `slug`: its organization key's own, or one its user is an active member of. */
export const organizationFor = async (
  directory: Pick<DirectoryStore, 'findMembership'>,
  caller: Caller,
  slug: string,
): Promise<string> => {
  if (caller.kind === 'organization') {
    if (caller.orgId !== slug) throw new ForbiddenError(NO_ACCESS);
    return slug;
  }
  if ((await directory.findMembership(caller.userId, slug))?.status !== 'ACTIVE') throw new ForbiddenError(NO_ACCESS);
  return slug;
};

/**
 * An organization's detection settings changed by the operator: auto-reporting on or off, and
 * the confidence thresholds, each in [0, 1] and in order (low ≤ medium ≤ high).
 */
export const changeDetectionSettings = async (
  store: Pick<DetectionStore, 'settings' | 'putSettings'>,
  orgId: string,
  change: { autoReport?: boolean; thresholds?: Thresholds },
): Promise<DetectionSettings> => {
  const current = await store.settings(orgId);
  const next = {
    autoReport: change.autoReport ?? current.autoReport,
    thresholds: change.thresholds ?? current.thresholds,
  };
  const { low, medium, high } = next.thresholds;
  const inRange = [low, medium, high].every((value) => Number.isFinite(value) && value >= 0 && value <= 1);
  if (!inRange || low > medium || medium > high) {
    throw new BadRequestError('Thresholds must be numbers from 0 to 1 with low ≤ medium ≤ high');
  }
  await store.putSettings(orgId, next);
  return next;
};

const configView = ({ orgId: _org, deletedAt: _deleted, ...config }: DetectionConfig) => config;

const findLive = async (store: DetectionStore, orgId: string, configId: number) => {
  const config = await store.findConfig(orgId, configId);
  if (config === undefined || config.deletedAt !== null)
    throw new NotFoundError(`Detection config ${configId} not found`);
  return config;
};

export const sourceFor = (key: string) => {
  const source = sourceOf(key);
  if (source === undefined) {
    throw new BadRequestError(`Unknown detection source ${key}`, {
      issues: [{ message: `Unknown detection source ${key}`, path: 'body.source' }],
    });
  }
  return source;
};

const checkCron = (source: { mode: string; key: string }, cron: string | null | undefined) => {
  if (cron !== undefined && cron !== null && source.mode !== 'pull') {
    throw new BadRequestError(`cron is only accepted for scheduled sources; ${source.key} is push-based`, {
      issues: [{ message: `cron is only accepted for scheduled sources`, path: 'body.cron' }],
    });
  }
  if (cron !== undefined && cron !== null) checkedCron(cron);
};

/**
 * Where an enabled config is listed: a pull config under the schedule class of its cron (its
 * source's default when it has none), with the first time after `now` that cron names; a push
 * config under its source. A disabled or deleted config is not listed.
 */
export const listingOf = (config: DetectionConfig, now: number): ConfigListing | undefined => {
  const source = sourceOf(config.source);
  if (source === undefined || config.status !== 'ENABLED' || config.deletedAt !== null) return undefined;
  const base = { orgId: config.orgId, configId: config.id, source: config.source };
  if (source.mode === 'push') return { ...base, slot: config.source, cron: null, nextRunAt: null };
  const text = config.cron ?? source.defaultCron;
  const cron = text === null ? undefined : parseCron(text);
  if (cron === undefined) return undefined;
  const next = nextCronTime(cron, now);
  return {
    ...base,
    slot: scheduleClassOf(cron),
    cron: text,
    nextRunAt: next === undefined ? null : new Date(next).toISOString(),
  };
};

export const listConfigs = async (deps: DetectionDeps, caller: Caller, slug: string) => {
  const orgId = await organizationFor(deps.directory, caller, slug);
  const configs = (await deps.store.listConfigs(orgId)).filter((config) => config.deletedAt === null);
  const bySource = new Map<string, ReturnType<typeof configView>[]>();
  for (const config of configs)
    bySource.set(config.source, [...(bySource.get(config.source) ?? []), configView(config)]);
  return { sources: [...bySource].map(([source, list]) => ({ source, configs: list })) };
};

export const createConfig = async (
  deps: ConfigDeps,
  caller: Caller,
  body: {
    slug: string;
    source: string;
    config: unknown;
    cron?: string;
    brandId?: number;
    title?: string;
    description?: string;
  },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const source = sourceFor(body.source);
  checkCron(source, body.cron);
  const config = validateConfig(source, body.config);
  await checkOutbound(deps.outbound, source, config, 'body.');
  if (body.brandId !== undefined) {
    const brands = await deps.directory.listBrands(orgId);
    if (!brands.some((brand) => brandIdOf(brand) === body.brandId)) {
      throw new ForbiddenError('Brand does not belong to your organization');
    }
  }
  const at = new Date(now).toISOString();
  const created: DetectionConfig = {
    id: newRecordId(now),
    orgId,
    source: source.key,
    brandId: body.brandId ?? null,
    title: body.title ?? source.name,
    description: body.description ?? '',
    status: 'ENABLED',
    cron: body.cron ?? null,
    config,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    lastRunAt: null,
    lastResultCount: null,
  };
  await deps.store.createConfig(created, listingOf(created, now));
  return configView(created);
};

export const updateConfig = async (
  deps: ConfigDeps,
  caller: Caller,
  body: {
    slug: string;
    configId: number;
    status?: 'ENABLED' | 'DISABLED';
    cron?: string | null;
    title?: string;
    description?: string;
    config?: unknown;
    mergeConfig?: boolean;
  },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const current = await findLive(deps.store, orgId, body.configId);
  const source = sourceFor(current.source);
  checkCron(source, body.cron);
  const merged =
    body.config === undefined
      ? current.config
      : body.mergeConfig === false ||
          typeof body.config !== 'object' ||
          body.config === null ||
          Array.isArray(body.config)
        ? body.config
        : { ...current.config, ...(body.config as Record<string, unknown>) };
  const config = validateConfig(source, merged);
  await checkOutbound(deps.outbound, source, config, 'body.');
  const next: DetectionConfig = {
    ...current,
    status: body.status ?? current.status,
    cron: body.cron === undefined ? current.cron : body.cron,
    title: body.title ?? current.title,
    description: body.description ?? current.description,
    config,
    updatedAt: new Date(Math.max(now, Date.parse(current.updatedAt) + 1)).toISOString(),
  };
  const listings = { remove: listingOf(current, now)?.slot, put: listingOf(next, now) };
  if (!(await deps.store.updateConfig(next, current.updatedAt, listings))) {
    throw new BadRequestError('The config changed while it was being updated; try again');
  }
  return configView(next);
};

export const deleteConfig = async (
  deps: DetectionDeps,
  caller: Caller,
  body: { slug: string; configId: number },
  now: number,
) => {
  const orgId = await organizationFor(deps.directory, caller, body.slug);
  const current = await findLive(deps.store, orgId, body.configId);
  const at = new Date(Math.max(now, Date.parse(current.updatedAt) + 1)).toISOString();
  const deleted = { ...current, deletedAt: at, updatedAt: at };
  if (!(await deps.store.updateConfig(deleted, current.updatedAt, { remove: listingOf(current, now)?.slot }))) {
    throw new NotFoundError(`Detection config ${body.configId} not found`);
  }
  return { id: current.id, deletedAt: at };
};

/** The configs a run or validation takes: one by id, a source's, or every one; disabled ones only on request. */
export const selectConfigs = async (
  store: DetectionStore,
  orgId: string,
  pick: { configId?: number; source?: string; includeDisabled?: boolean },
) => {
  if (pick.configId !== undefined) return [await findLive(store, orgId, pick.configId)];
  if (pick.source !== undefined) sourceFor(pick.source);
  return (await store.listConfigs(orgId)).filter(
    (config) =>
      config.deletedAt === null &&
      (pick.source === undefined || config.source === pick.source) &&
      (pick.includeDisabled === true || config.status === 'ENABLED'),
  );
};
