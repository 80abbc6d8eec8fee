import type { BrandProfile } from './brand-profile.ts';

export type Organization = { slug: string; name: string; featureFlags: string[] };
export const BRAND_TYPES = ['ORGANIZATION', 'INDIVIDUAL'] as const;
export type BrandType = (typeof BRAND_TYPES)[number];
/** `deleted` brands stay (their metrics remain readable) but are no longer offered to reviews. */
export type Brand = { orgId: string; slug: string; name: string; type?: BrandType; deleted?: boolean } & BrandProfile;
export const MEMBERSHIP_STATUSES = ['ACTIVE', 'INACTIVE', 'INVITED', 'SUSPENDED'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];
export type Membership = { userId: string; orgId: string; status: MembershipStatus };

/** The operator's records: organizations, brands, users and memberships (API keys: ApiKeyStore). */
export interface DirectoryStore {
  putOrganization(org: Organization): Promise<void>;
  findOrganization(slug: string): Promise<Organization | undefined>;
  putBrand(brand: Brand): Promise<void>;
  findBrand(orgId: string, slug: string): Promise<Brand | undefined>;
  listBrands(orgId: string): Promise<Brand[]>;
  putUser(userId: string): Promise<void>;
  userExists(userId: string): Promise<boolean>;
  putMembership(membership: Membership): Promise<void>;
  findMembership(userId: string, orgId: string): Promise<Membership | undefined>;
}
