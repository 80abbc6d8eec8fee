import { ForbiddenError, NotFoundError } from '../../errors.ts';
import { organizationIdOf } from '../lifecycle/reports.ts';
import type { Caller } from './access.ts';
import type { Scope } from './api-keys.ts';
import {
  effectiveSettings,
  type OrganizationSettings,
  type ServiceKey,
  type SettingsStore,
  type SubscriptionStatus,
} from './organization-settings.ts';
import type { DirectoryStore, MembershipStatus } from './organizations.ts';

export type Profile = { email: string | null; fullName: string | null; avatarUrl: string | null };
export type ProfileChanges = { fullName?: string; avatarUrl?: string | null };

export interface ProfileStore {
  find(userId: string): Promise<Profile | undefined>;
  /** Sets the given fields (creating the profile if none); returns the profile after the change. */
  update(userId: string, changes: ProfileChanges): Promise<Profile>;
  /** The user's memberships, every status, with the role each holds. */
  memberships(userId: string): Promise<{ orgId: string; status: MembershipStatus; role: string }[]>;
}

export type AccountStores = {
  profiles: ProfileStore;
  settings: SettingsStore;
  directory: Pick<DirectoryStore, 'findOrganization' | 'findMembership'>;
};

const USER_KEY_REQUIRED = 'This endpoint requires a user API key';
/** The role an organization key acts with: the organization's own. */
const ORGANIZATION_KEY_ROLE = 'ORGANIZATION';

const profileView = (userId: string, profile: Profile | undefined) => ({
  id: userId,
  email: profile?.email ?? null,
  fullName: profile?.fullName ?? null,
  avatarUrl: profile?.avatarUrl ?? null,
});

/** `POST /user/me`: the user a user key belongs to; an organization key has no user. */
export const currentUser = async (profiles: ProfileStore, caller: Caller) => {
  if (caller.kind !== 'user') throw new ForbiddenError(USER_KEY_REQUIRED);
  return profileView(caller.userId, await profiles.find(caller.userId));
};

/** `POST /user/me/update`: changes the user's own name and avatar. */
export const updateCurrentUser = async (profiles: ProfileStore, caller: Caller, changes: ProfileChanges) => {
  if (caller.kind !== 'user') throw new ForbiddenError(USER_KEY_REQUIRED);
  return profileView(caller.userId, await profiles.update(caller.userId, changes));
};

const servicesView = ({ services }: OrganizationSettings) => ({
  reporting: { active: services.reporting },
  reviewing: { active: services.reviewing },
  protection: { active: services.protection },
  takedowns: { active: services.takedowns.active, automated: services.takedowns.automated },
  detection: { active: services.detection },
  darkWebMonitoring: { active: services.darkWebMonitoring },
});

/** The published organization entry (the example's fields, in its order), plus the caller's `role`. */
const organizationView = async (stores: AccountStores, orgId: string, role: string) => {
  const organization = await stores.directory.findOrganization(orgId);
  if (organization === undefined) return undefined;
  const settings = effectiveSettings(await stores.settings.find(orgId));
  return {
    id: organizationIdOf(orgId),
    name: organization.name,
    slug: organization.slug,
    avatarUrl: settings.avatarUrl,
    subscriptionStatus: settings.subscriptionStatus,
    services: servicesView(settings),
    obligatoryAdminApproval: settings.obligatoryAdminApproval,
    integrations: settings.integrations,
    legalDocuments: settings.legalDocuments,
    trademarkRegistrations: settings.trademarkRegistrations,
    role,
  };
};

type OrganizationView = NonNullable<Awaited<ReturnType<typeof organizationView>>>;

/**
 * The filters of `POST /user/orgs`, all ANDed: the subscription statuses listed; the services named
 * (a list: each active; an object: each as its `active`, and `takedowns.automated`); the admin
 * approval setting; `query`, a case-insensitive substring of the name.
 */
export type OrganizationFilters = {
  subscriptionStatus?: readonly SubscriptionStatus[];
  services?:
    | readonly ServiceKey[]
    | (Partial<Record<Exclude<ServiceKey, 'takedowns'>, { active?: boolean }>> & {
        takedowns?: { active?: boolean; automated?: boolean };
      });
  obligatoryAdminApproval?: boolean;
  query?: string;
};

const serviceState = (view: OrganizationView, service: ServiceKey) => view.services[service];

const matches = (view: OrganizationView, filters: OrganizationFilters): boolean => {
  const { subscriptionStatus, services, obligatoryAdminApproval, query } = filters;
  if (subscriptionStatus !== undefined && !subscriptionStatus.includes(view.subscriptionStatus)) return false;
  if (obligatoryAdminApproval !== undefined && view.obligatoryAdminApproval !== obligatoryAdminApproval) return false;
  if (query !== undefined && !view.name.toLowerCase().includes(query.toLowerCase())) return false;
  if (services === undefined) return true;
  if (Array.isArray(services)) return services.every((service: ServiceKey) => serviceState(view, service).active);
  return Object.entries(services).every(([service, wanted]) => {
    const state: { active: boolean; automated?: boolean } = serviceState(view, service as ServiceKey);
    const want = wanted as { active?: boolean; automated?: boolean };
    return (
      (want.active === undefined || state.active === want.active) &&
      (want.automated === undefined || state.automated === want.automated)
    );
  });
};

/**
 * `POST /user/orgs`: a user key's ACTIVE memberships' organizations; an organization key's own.
 * INACTIVE organizations are never listed; `filters` narrow the rest.
 */
export const userOrganizations = async (stores: AccountStores, caller: Caller, filters: OrganizationFilters = {}) => {
  const entries =
    caller.kind === 'organization'
      ? [{ orgId: caller.orgId, role: ORGANIZATION_KEY_ROLE }]
      : (await stores.profiles.memberships(caller.userId)).filter((membership) => membership.status === 'ACTIVE');
  const views = await Promise.all(entries.map(({ orgId, role }) => organizationView(stores, orgId, role)));
  return {
    organizations: views.filter(
      (view): view is OrganizationView =>
        view !== undefined && view.subscriptionStatus !== 'INACTIVE' && matches(view, filters),
    ),
  };
};

/** `GET /user/orgs/{slug}`: one of the caller's organizations; any other slug is not found. */
export const userOrganization = async (stores: AccountStores, caller: Caller, slug: string) => {
  let role: string | undefined;
  if (caller.kind === 'organization') role = caller.orgId === slug ? ORGANIZATION_KEY_ROLE : undefined;
  else {
    const membership = (await stores.profiles.memberships(caller.userId)).find((entry) => entry.orgId === slug);
    role = membership?.status === 'ACTIVE' ? membership.role : undefined;
  }
  const view = role === undefined ? undefined : await organizationView(stores, slug, role);
  if (view === undefined) throw new NotFoundError('Organization not found');
  return view;
};

/** `GET /validate`: what the key is; reached only with a valid key (a bad key is 401 before). */
export const validateKey = (caller: Caller & { scopes: Scope[] }) => ({
  valid: true as const,
  kind: caller.kind,
  organization: caller.kind === 'organization' ? { slug: caller.orgId } : null,
  scopes: caller.scopes,
});
