import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Profile, ProfileStore } from '../domain/account/account.ts';
import type { SettingsInput, SettingsStore } from '../domain/account/organization-settings.ts';
import type { MembershipStatus } from '../domain/account/organizations.ts';
import { queryPages } from './batch.ts';
import { key } from './keys.ts';

/** The role a membership holds when the operator named none. */
const DEFAULT_ROLE = 'MEMBER';

const profileOf = (item: Record<string, unknown>): Profile => ({
  email: (item.email as string | undefined) ?? null,
  fullName: (item.fullName as string | undefined) ?? null,
  avatarUrl: (item.avatarUrl as string | undefined) ?? null,
});

export const profileRepository = (db: DynamoDBDocumentClient, table: string): ProfileStore => ({
  async find(userId) {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.profile(userId) }));
    return Item === undefined ? undefined : profileOf(Item);
  },

  async update(userId, changes) {
    const sets = Object.entries(changes).filter(([, value]) => value !== undefined);
    const names = Object.fromEntries(sets.map(([name], i) => [`#f${i}`, name]));
    const values = Object.fromEntries(sets.map(([, value], i) => [`:f${i}`, value]));
    const { Attributes = {} } = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: key.profile(userId),
        UpdateExpression: `SET ${['#entity = :entity', ...sets.map((_, i) => `#f${i} = :f${i}`)].join(', ')}`,
        ExpressionAttributeNames: { '#entity': 'entity', ...names },
        ExpressionAttributeValues: { ':entity': 'PROFILE', ...values },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return profileOf(Attributes);
  },

  async memberships(userId) {
    const memberships: { orgId: string; status: MembershipStatus; role: string }[] = [];
    for await (const items of queryPages(db, {
      TableName: table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': key.memberships.PK(userId), ':prefix': key.memberships.prefix },
    })) {
      for (const item of items) {
        memberships.push({
          orgId: item.orgId as string,
          status: item.status as MembershipStatus,
          role: (item.role as string | undefined) ?? DEFAULT_ROLE,
        });
      }
    }
    return memberships;
  },
});

/** Written by the operator (fixtures, CLI); the functions only read it. */
export const settingsRepository = (db: DynamoDBDocumentClient, table: string): SettingsStore => ({
  async find(orgId) {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: key.orgSettings(orgId) }));
    return (Item?.settings as SettingsInput | undefined) ?? {};
  },

  async put(orgId, settings) {
    await db.send(
      new PutCommand({ TableName: table, Item: { ...key.orgSettings(orgId), entity: 'SETTINGS', settings } }),
    );
  },
});

/** Fixture users' profile fields, written by the operator's tools. */
export const putProfile = async (
  db: DynamoDBDocumentClient,
  table: string,
  userId: string,
  profile: Partial<Profile>,
) => {
  const fields = Object.fromEntries(
    Object.entries(profile).filter(([, value]) => value !== undefined && value !== null),
  );
  await db.send(new PutCommand({ TableName: table, Item: { ...key.profile(userId), entity: 'PROFILE', ...fields } }));
};
