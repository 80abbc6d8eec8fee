import { ForbiddenError } from '../../errors.ts';
import type { DirectoryStore } from './organizations.ts';

/** The caller of an endpoint that takes `organizationSlug`, as its API key identifies it. */
export type Caller = { kind: 'organization'; orgId: string } | { kind: 'user'; userId: string };

/**
 * The organization a caller acts for: an organization key's own (a slug, when sent, must be
 * it), or for a user key the slug it sends, where the user is an ACTIVE member.
 */
export const actingOrganization = async (
  directory: Pick<DirectoryStore, 'findMembership'>,
  caller: Caller,
  organizationSlug: string | undefined,
  resource: string,
): Promise<string> => {
  const denied = () => new ForbiddenError(`You do not have permission to access ${resource} for this organization`);
  if (caller.kind === 'organization') {
    if (organizationSlug !== undefined && organizationSlug !== caller.orgId) throw denied();
    return caller.orgId;
  }
  if (organizationSlug === undefined) throw new ForbiddenError('organizationSlug is required with a user API key');
  const membership = await directory.findMembership(caller.userId, organizationSlug);
  if (membership?.status !== 'ACTIVE') throw denied();
  return organizationSlug;
};
