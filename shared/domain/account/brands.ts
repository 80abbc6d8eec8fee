import { brandIdOf } from '../lifecycle/reviews.ts';
import { brandProfileView } from './brand-profile.ts';
import type { DirectoryStore } from './organizations.ts';

/** `GET /organization/brands`: every live brand of the organization, with the stable id reviews take. */
export const listBrands = async (directory: Pick<DirectoryStore, 'listBrands'>, orgId: string) =>
  (await directory.listBrands(orgId))
    .filter((brand) => !brand.deleted)
    .map((brand) => ({
      id: brandIdOf(brand),
      slug: brand.slug,
      name: brand.name,
      type: brand.type ?? 'ORGANIZATION',
      ...brandProfileView(brand),
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
