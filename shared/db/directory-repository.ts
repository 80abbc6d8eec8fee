import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { BRAND_PROFILE_KEYS } from '../domain/account/brand-profile.ts';
import type { Brand, DirectoryStore, Membership } from '../domain/account/organizations.ts';
import { key } from './keys.ts';
import { ensureCollectionIds } from './taxii-repository.ts';

/** The `entity` attribute of the organization and brand items. */
export const DIRECTORY_ENTITY = { organization: 'ORGANIZATION', brand: 'BRAND' } as const;

/** The profile fields a brand item holds (an item written before they existed holds none). */
const profileOf = (item: Record<string, unknown>) =>
  Object.fromEntries(BRAND_PROFILE_KEYS.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name]]])));

const brandOf = (item: Record<string, unknown>): Brand =>
  ({
    orgId: item.orgId,
    slug: item.slug,
    name: item.name,
    ...(item.type === undefined ? {} : { type: item.type }),
    ...(item.deleted === true ? { deleted: true } : {}),
    ...profileOf(item),
  }) as Brand;

export const directoryRepository = (db: DynamoDBDocumentClient, table: string): DirectoryStore => {
  const get = async (Key: { PK: string; SK: string }) =>
    (await db.send(new GetCommand({ TableName: table, Key, ConsistentRead: true }))).Item;
  const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: table, Item }));

  return {
    async putOrganization(org) {
      await put({ ...key.org(org.slug), entity: DIRECTORY_ENTITY.organization, ...org });
      await ensureCollectionIds(db, table, org.slug);
    },
    async findOrganization(slug) {
      const item = await get(key.org(slug));
      return item ? { slug: item.slug, name: item.name, featureFlags: item.featureFlags ?? [] } : undefined;
    },
    async putBrand(brand) {
      await put({ ...key.brand(brand.orgId, brand.slug), entity: DIRECTORY_ENTITY.brand, ...brand });
    },
    async findBrand(orgId, slug) {
      const item = await get(key.brand(orgId, slug));
      return item ? brandOf(item) : undefined;
    },
    async listBrands(orgId) {
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': key.brands.PK(orgId), ':prefix': key.brands.prefix },
        }),
      );
      return Items.map(brandOf);
    },
    async putUser(userId) {
      await put({ ...key.user(userId), entity: 'USER', userId });
    },
    async userExists(userId) {
      return (await get(key.user(userId))) !== undefined;
    },
    async putMembership(membership) {
      await put({ ...key.membership(membership.userId, membership.orgId), entity: 'MEMBERSHIP', ...membership });
    },
    async findMembership(userId, orgId) {
      const item = await get(key.membership(userId, orgId));
      return item ? ({ userId: item.userId, orgId: item.orgId, status: item.status } as Membership) : undefined;
    },
  };
};
