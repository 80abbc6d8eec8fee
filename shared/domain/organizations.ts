import type { ApiKeyRecord } from './api-keys.ts';

export type Organization = { slug: string; name: string; featureFlags: string[] };
export type Brand = { orgId: string; slug: string; name: string };
export type MembershipStatus = 'ACTIVE' | 'INACTIVE' | 'INVITED' | 'SUSPENDED';
export type Membership = { userId: string; orgId: string; status: MembershipStatus };

/** The operator's records: organizations, brands, users, memberships and API keys. */
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
  /** Stores a key by its hash; returns false when that hash is already stored (nothing changes). */
  putApiKey(hash: string, record: ApiKeyRecord): Promise<boolean>;
  revokeApiKey(hash: string): Promise<boolean>;
}
