export type Organization = { slug: string; name: string; featureFlags: string[] };
export type Brand = { orgId: string; slug: string; name: string };
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
  putMembership(membership: Membership): Promise<void>;
  findMembership(userId: string, orgId: string): Promise<Membership | undefined>;
}
